package kubernetes

import (
	"context"
	"fmt"
	"io"

	"github.com/rbx-sandbox/rbx/recycle/agent"
)

// baselineFiles reads the image's files for one recycle from the pod's
// baseline container (the image as the node holds it, never the sandbox's
// files): one agent cat exec, started on first use, serves every file the
// recycle restores, one after the other.
type baselineFiles struct {
	s    *Sandbox
	cat  *agent.CatClient
	in   io.Closer
	done chan error
}

// open is the recycle.Opener of the baseline container: e's content,
// checked against e's type, mode, owner and size. The reader must be read
// whole before the next open (recycle.Restore does).
func (b *baselineFiles) open(ctx context.Context, e agent.Entry) (io.ReadCloser, error) {
	if b.cat == nil {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		b.cat, b.in, b.done = &agent.CatClient{W: inW, R: outR}, inW, make(chan error, 1)
		go func() {
			err := b.s.agentIn(context.WithoutCancel(ctx), baselineName, []string{"cat"}, func(in io.Writer, out io.Reader) error {
				go func() {
					_, _ = io.Copy(in, inR)
					if c, ok := in.(io.Closer); ok {
						c.Close() // the requests ended: so does cat
					}
				}()
				_, err := io.Copy(outW, out)
				outW.CloseWithError(err)
				return err
			})
			outW.CloseWithError(fmt.Errorf("baseline cat ended: %v", err))
			inR.CloseWithError(fmt.Errorf("baseline cat ended: %v", err))
			b.done <- err
		}()
	}
	h, r, err := b.cat.Open(e.Path)
	if err != nil {
		return nil, fmt.Errorf("read %q from the baseline container: %w", e.Path, err)
	}
	if h.Mode&0o170000 != 0o100000 || h.Size != e.Size || h.Mode&0o7777 != e.Mode || h.UID != e.UID || h.GID != e.GID {
		return nil, fmt.Errorf("read %q: not the fresh file (mode %o size %d owner %d:%d)", e.Path, h.Mode, h.Size, h.UID, h.GID)
	}
	return io.NopCloser(r), nil
}

// close ends the cat exec, if one was started.
func (b *baselineFiles) close() {
	if b.cat == nil {
		return
	}
	b.in.Close()
	<-b.done
}
