package docker

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/rbx-sandbox/rbx/recycle"
	"github.com/rbx-sandbox/rbx/recycle/agent"
)

// writePlan writes plan for the agent, reading each file's content from
// the baseline container (or the kept copies) as the agent reads it, and
// records the SHA-256 of what it sent in sent.
func (s *Sandbox) writePlan(ctx context.Context, st *recycleState, plan recycle.Plan, w *agent.PlanWriter, sent map[string]string) error {
	for _, p := range plan.Remove {
		if err := w.Write(agent.Op{Op: agent.OpRemove, Path: p}, nil); err != nil {
			return err
		}
	}
	for _, e := range plan.Create {
		if err := s.writeCreate(ctx, st, e, w, sent); err != nil {
			return err
		}
	}
	for _, e := range plan.Meta {
		op := agent.Op{Op: agent.OpMeta, Path: e.Path, Type: e.Type, Mode: e.Mode, UID: e.UID, GID: e.GID, Mtime: e.Mtime}
		if err := w.Write(op, nil); err != nil {
			return err
		}
	}
	return w.Close()
}

// writeCreate writes the op recreating e, with a file's content.
func (s *Sandbox) writeCreate(ctx context.Context, st *recycleState, e agent.Entry, w *agent.PlanWriter, sent map[string]string) error {
	op := agent.Op{Op: agent.OpCreate, Path: e.Path, Type: e.Type, Mode: e.Mode, UID: e.UID, GID: e.GID,
		Size: e.Size, Link: e.Link, Rdev: e.Rdev, Mtime: e.Mtime, InPlace: e.MountRoot}
	if e.Type != agent.TypeFile {
		return w.Write(op, nil)
	}
	var src io.Reader
	if data, ok := st.kept[string(e.Path)]; ok {
		src = bytes.NewReader(data)
	} else if e.MountRoot {
		return fmt.Errorf("%q: no fresh copy of a mount root", e.Path)
	} else {
		rc, err := s.rt.openFile(ctx, st.source, e)
		if err != nil {
			return fmt.Errorf("restore from the image: %w", err)
		}
		defer rc.Close()
		src = rc
	}
	h := sha256.New()
	if err := w.Write(op, io.TeeReader(src, h)); err != nil {
		return err
	}
	sent[string(e.Path)] = hex.EncodeToString(h.Sum(nil))
	return nil
}
