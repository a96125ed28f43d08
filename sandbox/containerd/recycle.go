package containerd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/containerd/containerd/v2/client"

	"github.com/rbx-sandbox/rbx/recycle"
	"github.com/rbx-sandbox/rbx/recycle/agent"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

var (
	_ sandbox.Recycler        = (*Sandbox)(nil)
	_ sandbox.RecyclePreparer = (*Sandbox)(nil)
)

// recycleState is what a recyclable sandbox keeps from its Create.
type recycleState struct {
	mu sync.Mutex
	// fresh is the fresh listing (shared by shape) and the fingerprints of
	// the last proven one.
	fresh *recycle.Fresh
	// kept holds the content of the mount-root files no image holds.
	kept map[string][]byte
	// img is the sandbox's image, which restores read.
	img client.Image
	// broken is set by a failed Recycle: the sandbox must be removed.
	broken error
	// prepared is how long Create spent on the fresh listing.
	prepared time.Duration
}

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
// its Create before the session shell opens: as fingerprints when the host
// holds a listing of this image's shape, else whole.
func (s *Sandbox) prepareRecycle(ctx context.Context, img client.Image) error {
	start := time.Now()
	var fr *recycle.Fresh
	var rep agent.Report
	ok := false
	if s.rt.fresh.Kept(s.imageID) {
		var err error
		if fr, rep, ok, err = s.rt.fresh.ListByFPs(ctx, s.agentStream, s.imageID); err != nil {
			return fmt.Errorf("prepare recycling: fresh listing: %w", err)
		}
	}
	if !ok {
		var err error
		if fr, rep, err = s.rt.fresh.ListWhole(ctx, s.agentStream, s.imageID); err != nil {
			return fmt.Errorf("prepare recycling: fresh listing: %w", err)
		}
	}
	if rep.State.Others != 0 || rep.State.IPC != 0 {
		fr.Release()
		return fmt.Errorf("prepare recycling: %d processes and %d IPC objects at creation", rep.State.Others, rep.State.IPC)
	}
	s.rec = &recycleState{fresh: fr, kept: recycle.KeptFiles(rep), img: img, prepared: time.Since(start)}
	return nil
}

// RecyclePrepared is how long Create spent taking the fresh listing (0 for
// a sandbox created without Spec.Recycle).
func (s *Sandbox) RecyclePrepared() time.Duration {
	if s.rec == nil {
		return 0
	}
	return s.rec.prepared
}

// releaseRecycle gives back the sandbox's share of its fresh listing.
func (s *Sandbox) releaseRecycle() {
	if s.rec == nil {
		return
	}
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	if s.rec.fresh != nil {
		s.rec.fresh.Release()
		s.rec.fresh = nil
	}
	if s.rec.broken == nil {
		s.rec.broken = errors.New("removed")
	}
}

// Recycle hangs up the session shell and runs the agent's recycle in an
// exec: it kills every process but PID 1 and itself, removes IPC objects,
// restores every entry the episode changed, created or deleted (content
// from the image, mounted read-only on the host for this recycle, or the
// kept fresh copy) and verifies the result against the fresh listing (see
// recycle.Restore and docs/recycling.md). In session mode a fresh session
// shell then opens in an exec, as at creation.
func (s *Sandbox) Recycle(ctx context.Context) (sandbox.RecycleReport, error) {
	start := time.Now()
	if s.rec == nil {
		return sandbox.RecycleReport{}, s.recycleErr("spec", fmt.Errorf("%w: created without Spec.Recycle", sandbox.ErrUnsupported))
	}
	st := s.rec
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.broken != nil {
		return sandbox.RecycleReport{}, s.recycleErr("broken", fmt.Errorf("an earlier recycle failed: %w", st.broken))
	}
	s.keeper.Close() // the shell dies with the rest; a fresh one opens after
	var rep sandbox.RecycleReport
	reason, err := s.restore(ctx, st, &rep)
	if err != nil {
		st.broken = err
		return rep, s.recycleErr(reason, err)
	}
	if s.mode == sandbox.ModeSession {
		if err := s.keeper.Reopen(ctx); err != nil {
			st.broken = err
			return rep, s.recycleErr("session", err)
		}
	}
	rep.Duration = time.Since(start)
	return rep, nil
}

// restore runs the agent's recycle and the host's side of its talk;
// reason names the part that failed.
func (s *Sandbox) restore(ctx context.Context, st *recycleState, rep *sandbox.RecycleReport) (reason string, err error) {
	view := s.rt.newImageView(st.img)
	defer func() {
		if verr := view.close(); verr != nil {
			s.rt.log.Warn("unmount image view", "id", s.id, "err", verr)
		}
	}()
	r := &recycle.Restore{Fresh: st.fresh, Kept: st.kept, Open: view.open, Log: s.rt.log, ID: s.id}
	reason = "scan"
	err = s.agentStream(ctx, []string{"recycle"}, func(in io.Writer, out io.Reader) error {
		var terr error
		reason, terr = r.Talk(ctx, in, out, rep)
		return terr
	})
	return reason, err
}

func (s *Sandbox) recycleErr(reason string, err error) error {
	return &sandbox.RecycleError{ID: s.id, Reason: reason, Err: err}
}
