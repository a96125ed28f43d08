package containerd

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/containerd/containerd/v2/client"

	"github.com/rbx-sandbox/rbx/recycle"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

var (
	_ sandbox.Recycler        = (*Sandbox)(nil)
	_ sandbox.RecyclePreparer = (*Sandbox)(nil)
)

// checkRecycle refuses Spec.Recycle without an agent (WithAgent).
func (r *Runtime) checkRecycle(spec sandbox.Spec) error {
	if spec.Recycle && r.agent == nil {
		return fmt.Errorf("%w: recycle: the containerd runtime has no agent (containerd.WithAgent)", sandbox.ErrUnsupported)
	}
	return nil
}

// makeWorkdir makes a recyclable sandbox's workdir, as the sandbox's user,
// before its files are set up: PID 1 is the agent alone, not the shell
// that makes it in other sandboxes.
func (s *Sandbox) makeWorkdir(ctx context.Context) error {
	_, _, err := s.runShort(ctx, "/bin/sh", "-c", "mkdir -p -- "+session.Quote(s.workdir)+" 2>/dev/null; :")
	return err
}

// prepareRecycle takes a recyclable sandbox's fresh listing, at the end of
// its Create before the session shell opens (recycle.Baselines.Prepare).
func (s *Sandbox) prepareRecycle(ctx context.Context, img client.Image) error {
	st, err := s.rt.fresh.Prepare(ctx, s.agentStream, s.imageID)
	if err != nil {
		return fmt.Errorf("prepare recycling: %w", err)
	}
	s.rec, s.img = st, img
	return nil
}

// RecyclePrepared is how long Create spent taking the fresh listing (0 for
// a sandbox created without Spec.Recycle).
func (s *Sandbox) RecyclePrepared() time.Duration { return s.rec.Prepared() }

// Recycle hangs up the session shell and runs the agent's recycle in an
// exec: it kills every process but PID 1 and itself, removes IPC objects,
// restores every entry the episode changed, created or deleted (content
// from the image, mounted read-only on the host for this recycle, or the
// kept fresh copy) and verifies the result against the fresh listing (see
// recycle.Restore and docs/recycling.md). In session mode a fresh session
// shell then opens in an exec, as at creation.
func (s *Sandbox) Recycle(ctx context.Context) (sandbox.RecycleReport, error) {
	return s.rec.RecycleExec(ctx, s.id, s.keeper, s.mode == sandbox.ModeSession, s.restore)
}

// restore runs the agent's recycle and the host's side of its talk;
// reason names the part that failed.
func (s *Sandbox) restore(ctx context.Context, rep *sandbox.RecycleReport) (reason string, err error) {
	view := s.rt.newImageView(s.img)
	defer func() {
		if verr := view.close(); verr != nil {
			s.rt.log.Warn("unmount image view", "id", s.id, "err", verr)
		}
	}()
	r := &recycle.Restore{Fresh: s.rec.Fresh, Kept: s.rec.Kept, Open: view.open, Log: s.rt.log, ID: s.id}
	reason = "scan"
	err = s.agentStream(ctx, []string{"recycle"}, func(in io.Writer, out io.Reader) error {
		var terr error
		reason, terr = r.Talk(ctx, in, out, rep)
		return terr
	})
	return reason, err
}
