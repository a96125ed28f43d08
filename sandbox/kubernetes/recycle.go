package kubernetes

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/rbx-sandbox/rbx/recycle"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

var (
	_ sandbox.Recycler        = (*Sandbox)(nil)
	_ sandbox.RecyclePreparer = (*Sandbox)(nil)
	_ sandbox.RecycleChecker  = (*Runtime)(nil)
)

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
// the fresh listing (recycle.Baselines.Prepare).
func (s *Sandbox) prepareRecycle(ctx context.Context, image string) error {
	if _, code, err := s.runShort(ctx, "mkdir -p -- "+session.Quote(s.workdir), nil, nil); err != nil || code != 0 {
		return fmt.Errorf("prepare recycling: workdir: exit %d: %w", code, err)
	}
	st, err := s.rt.fresh.Prepare(ctx, s.agentStream, image)
	if err != nil {
		return fmt.Errorf("prepare recycling: %w", err)
	}
	s.rec = st
	return nil
}

// RecyclePrepared is how long Create spent taking the fresh listing (0 for
// a sandbox created without Spec.Recycle).
func (s *Sandbox) RecyclePrepared() time.Duration { return s.rec.Prepared() }

// Recycle hangs up the session shell and runs the agent's recycle in an
// exec: it kills every process but PID 1 and itself, removes IPC objects,
// restores every entry the episode changed, created or deleted (content
// read from the pod's baseline container, or the kept fresh copy) and
// verifies the result against the fresh listing (see recycle.Restore and
// docs/recycling.md). In session mode a fresh session shell then opens in
// an exec, as at creation. The pod stays: no scheduling, no image, no
// kubelet relist.
func (s *Sandbox) Recycle(ctx context.Context) (sandbox.RecycleReport, error) {
	return s.rec.RecycleExec(ctx, s.id, s.keeper, s.mode == sandbox.ModeSession, s.restore)
}

// restore runs the agent's recycle and the host's side of its talk;
// reason names the part that failed.
func (s *Sandbox) restore(ctx context.Context, rep *sandbox.RecycleReport) (reason string, err error) {
	files := &baselineFiles{s: s}
	defer files.close()
	r := &recycle.Restore{Fresh: s.rec.Fresh, Kept: s.rec.Kept, Open: files.open, Log: s.rt.cfg.log, ID: s.id}
	reason = "scan"
	err = s.agentStream(ctx, []string{"recycle"}, func(in io.Writer, out io.Reader) error {
		var terr error
		reason, terr = r.Talk(ctx, in, out, rep)
		return terr
	})
	return reason, err
}

// agentStream is the recycle.Stream of a pod sandbox: the agent from the
// pod's read-only tools volume, in an exec in the sandbox container.
func (s *Sandbox) agentStream(ctx context.Context, args []string, talk func(in io.Writer, out io.Reader) error) error {
	return s.agentIn(ctx, containerName, args, talk)
}

// agentIn runs the agent with args in container, attached both ways
// (recycle.RunAttached).
func (s *Sandbox) agentIn(ctx context.Context, container string, args []string, talk func(in io.Writer, out io.Reader) error) error {
	return recycle.RunAttached(ctx, args[0], func(stdin io.Reader, stdout, stderr io.Writer) (func() (int, error), func(), error) {
		pr, err := s.runIn(ctx, container, append([]string{agentPath}, args...), stdin, stdout, stderr)
		if err != nil {
			return nil, nil, err
		}
		wait := func() (int, error) {
			st := <-pr.status
			pr.cancel()
			if st.err != nil {
				return st.code, s.gone(ctx, st.err)
			}
			return st.code, nil
		}
		return wait, pr.cancel, nil
	}, talk)
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
