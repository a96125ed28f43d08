package recycle

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"

	"github.com/rbx-sandbox/rbx/recycle/agent"
)

// Stream runs the agent in one sandbox with args, as root, attached both
// ways: talk writes its stdin and reads its stdout while it runs, and its
// exit status is checked after. Each backend carries it its own way (PID
// 1's mux, an engine exec, a containerd exec).
type Stream func(ctx context.Context, args []string, talk func(in io.Writer, out io.Reader) error) error

// ListByFPs takes a fresh sandbox's listing as fingerprints of a whole
// walk under a new key (24 bytes an entry on the wire, none kept per
// sandbox) when b holds a listing of that shape; false when it holds none
// (the caller then lists whole, ListWhole). A listing taken is kept as
// image's.
func (b *Baselines) ListByFPs(ctx context.Context, run Stream, image string) (*Fresh, agent.Report, bool, error) {
	key, err := NewKey()
	if err != nil {
		return nil, agent.Report{}, false, err
	}
	var fps agent.FreshFPs
	var rep agent.Report
	err = run(ctx, []string{"scan", "-keep", "-fp"}, func(in io.Writer, out io.Reader) error {
		if _, err := in.Write(key[:]); err != nil {
			return err
		}
		if fps, err = agent.ReadFreshFPs(out); err != nil {
			return err
		}
		rep, err = agent.ReadFrame(out)
		return err
	})
	if err != nil {
		return nil, agent.Report{}, false, err
	}
	fr, ok := b.FromFPs(key, fps)
	if ok {
		b.Keep(image, fr)
	}
	return fr, rep, ok, nil
}

// ListWhole takes a fresh sandbox's whole listing (scan -keep) and keeps
// it as image's.
func (b *Baselines) ListWhole(ctx context.Context, run Stream, image string) (*Fresh, agent.Report, error) {
	var raw []byte
	err := run(ctx, []string{"scan", "-keep"}, func(_ io.Writer, out io.Reader) error {
		var err error
		raw, err = io.ReadAll(out)
		return err
	})
	if err != nil {
		return nil, agent.Report{}, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, agent.Report{}, fmt.Errorf("agent scan: %w", err)
	}
	rep, err := agent.ReadReport(zr)
	if err != nil {
		return nil, agent.Report{}, fmt.Errorf("agent scan: %w", err)
	}
	fr, err := b.NewFresh(rep.Entries)
	if err != nil {
		return nil, agent.Report{}, err
	}
	b.Keep(image, fr)
	return fr, rep, nil
}
