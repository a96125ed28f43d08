package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/rbx-sandbox/rbx/recycle"
	"github.com/rbx-sandbox/rbx/recycle/agent"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

var (
	_ sandbox.Recycler        = (*Sandbox)(nil)
	_ sandbox.RecyclePreparer = (*Sandbox)(nil)
	_ sandbox.RecycleChecker  = (*Runtime)(nil)
)

// agentTimeout bounds one agent command (a scan of a large image).
const agentTimeout = 5 * time.Minute

// recycleState is what a recyclable sandbox keeps from its Create.
type recycleState struct {
	mu sync.Mutex
	// fresh is the fresh listing (shared by shape) and the fingerprints of
	// the last proven one.
	fresh *recycle.Fresh
	// kept holds the content of the mount-root files no image holds.
	kept map[string][]byte
	// broken is set by a failed Recycle: the sandbox must be removed.
	broken error
	// prepared is how long Create spent on the fresh listing.
	prepared time.Duration
}

// CheckRecycle refuses Spec.Recycle without an agent (WithAgent), and for
// a sandbox run as another user than root: an exec runs as the
// container's user, and the agent must run as root to kill, list and
// restore everything the episode could touch.
func (r *Runtime) CheckRecycle(spec sandbox.Spec) error {
	if r.cfg.agentImage == "" {
		return fmt.Errorf("%w: recycle: the kubernetes runtime has no agent (kubernetes.WithAgent)", sandbox.ErrUnsupported)
	}
	if u := spec.User; u != "" && sandbox.NormalUser(u) != "0:0" {
		return fmt.Errorf("%w: recycle: user %q: on kubernetes an exec runs as the container's user, and the agent needs root", sandbox.ErrUnsupported, u)
	}
	return nil
}

// prepareRecycle finishes the Create of a recyclable sandbox, before its
// session shell opens: the workdir made (PID 1 is the agent alone), then
// the fresh listing — fingerprints when the host holds a listing of this
// image's shape, else the whole listing.
func (s *Sandbox) prepareRecycle(ctx context.Context, image string) error {
	start := time.Now()
	if _, code, err := s.runShort(ctx, "mkdir -p -- "+session.Quote(s.workdir), nil, nil); err != nil || code != 0 {
		return fmt.Errorf("prepare recycling: workdir: exit %d: %w", code, err)
	}
	var fr *recycle.Fresh
	var rep agent.Report
	ok := false
	if s.rt.fresh.Kept(image) {
		var err error
		if fr, rep, ok, err = s.rt.fresh.ListByFPs(ctx, s.agentStream, image); err != nil {
			return fmt.Errorf("prepare recycling: fresh listing: %w", err)
		}
	}
	if !ok {
		var err error
		if fr, rep, err = s.rt.fresh.ListWhole(ctx, s.agentStream, image); err != nil {
			return fmt.Errorf("prepare recycling: fresh listing: %w", err)
		}
	}
	if rep.State.Others != 0 || rep.State.IPC != 0 {
		fr.Release()
		return fmt.Errorf("prepare recycling: %d processes and %d IPC objects at creation", rep.State.Others, rep.State.IPC)
	}
	s.rec = &recycleState{fresh: fr, kept: recycle.KeptFiles(rep), prepared: time.Since(start)}
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
// read from the pod's baseline container, or the kept fresh copy) and
// verifies the result against the fresh listing (see recycle.Restore and
// docs/recycling.md). In session mode a fresh session shell then opens in
// an exec, as at creation. The pod stays: no scheduling, no image, no
// kubelet relist.
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
	files := &baselineFiles{s: s}
	defer files.close()
	r := &recycle.Restore{Fresh: st.fresh, Kept: st.kept, Open: files.open, Log: s.rt.cfg.log, ID: s.id}
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

// agentStream is the recycle.Stream of a pod sandbox: the agent from the
// pod's read-only tools volume, in an exec in the sandbox container.
func (s *Sandbox) agentStream(ctx context.Context, args []string, talk func(in io.Writer, out io.Reader) error) error {
	return s.agentIn(ctx, containerName, args, talk)
}

// agentIn runs the agent with args in container, attached both ways, and
// talks with it; its exit status is checked after talk.
func (s *Sandbox) agentIn(ctx context.Context, container string, args []string, talk func(in io.Writer, out io.Reader) error) error {
	ctx, cancel := context.WithTimeout(ctx, agentTimeout)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errOut session.LockedBuffer
	pr, err := s.runIn(ctx, container, append([]string{agentPath}, args...), inR, outW, &errOut)
	if err != nil {
		return fmt.Errorf("agent %s: %w", args[0], err)
	}
	defer pr.cancel()
	status := make(chan execStatus, 1)
	go func() {
		st := <-pr.status
		outW.Close() // the talk reading past the agent's output sees its end
		status <- st
	}()
	stop := context.AfterFunc(ctx, pr.cancel)
	defer stop()
	terr := talk(inW, outR)
	inW.Close() // a command still reading sees the end of its input
	if terr != nil {
		pr.cancel() // it may still wait for input
	}
	go func() { _, _ = io.Copy(io.Discard, outR) }() // what the talk did not read
	st := <-status
	stderr := strings.TrimSpace(string(errOut.Bytes()))
	switch {
	case st.err != nil:
		return fmt.Errorf("agent %s: %w", args[0], errors.Join(terr, s.gone(ctx, st.err)))
	case st.code != 0:
		return errors.Join(fmt.Errorf("agent %s: exit %d: %s", args[0], st.code, stderr), terr)
	case terr != nil:
		return fmt.Errorf("agent %s: %w", args[0], terr)
	}
	return nil
}

// Digest runs the agent's digest (tests compare a recycled sandbox with a
// fresh one): one line per entry, process and IPC object, then a total.
func (s *Sandbox) Digest(ctx context.Context) (string, error) {
	var out []byte
	err := s.agentStream(ctx, []string{"digest"}, func(_ io.Writer, o io.Reader) error {
		var err error
		out, err = io.ReadAll(o)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("digest sandbox %s: %w", s.id, err)
	}
	return string(out), nil
}
