package docker

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// killGrace is how long a killed step's streams may take to close.
const killGrace = 2 * time.Second

// execFresh runs req in a new exec (exec mode): nothing persists between
// commands (see session.Fresh).
func (s *Sandbox) execFresh(ctx context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error) {
	f := session.Fresh[struct{}]{ID: s.id, OutputCap: s.outputCap, Log: s.rt.log, Host: s.freshHostFor()}
	return f.Run(ctx, req)
}

// freshHost is what session.Fresh needs of a docker sandbox.
type freshHost struct{ s *Sandbox }

// Start creates and attaches the step's exec, with its environment and
// marker set by the engine. Its status is the end of the output copy: the
// engine is asked for the exit code after that.
func (h freshHost) Start(ctx context.Context, marker string, req sandbox.ExecRequest, out io.Writer) (session.Proc[struct{}], error) {
	s := h.s
	sh, err := s.execShell(ctx)
	if err != nil {
		return session.Proc[struct{}]{}, s.gone(ctx, err)
	}
	ex, err := s.rt.cli.ContainerExecCreate(ctx, s.id, container.ExecOptions{
		AttachStdout: true, AttachStderr: true, User: s.execUser,
		Cmd: []string{sh, "-c", session.FreshScript(req)}, WorkingDir: s.workdir,
		Env: append(envList(req.Env), "RBX_STEP="+marker),
	})
	if err != nil {
		return session.Proc[struct{}]{}, s.gone(ctx, err)
	}
	hj, err := s.rt.cli.ContainerExecAttach(ctx, ex.ID, container.ExecAttachOptions{})
	if err != nil {
		return session.Proc[struct{}]{}, fmt.Errorf("attach: %w", s.gone(ctx, err))
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = stdcopy.StdCopy(out, out, hj.Reader)
	}()
	return session.Proc[struct{}]{
		Status: done, // closed: a receive yields once the copy ended
		Finish: func(struct{}) (int, error) { return s.exitCode(ctx, ex.ID) },
		Stop: func() {
			select {
			case <-done:
			case <-time.After(killGrace):
			}
		},
		Close: hj.Close,
	}, nil
}

func (h freshHost) Gone(ctx context.Context, err error) error { return h.s.gone(ctx, err) }

// Ended: a step killed by a signal may have died with its container, and
// the engine reports an exec it could not start because the container
// stopped or went away ("cannot exec in a stopped state") as exit 126
// with its message for output.
func (h freshHost) Ended(ctx context.Context, res *sandbox.ExecResult) error {
	switch {
	case res.ExitCode < 0 || res.ExitCode >= 128:
		if gerr := h.s.goneAfterSignal(context.WithoutCancel(ctx), res.ExitCode); gerr != nil {
			return gerr
		}
		h.s.markOOM(ctx, res)
	case res.ExitCode == 126:
		if gerr := h.s.checkRunning(context.WithoutCancel(ctx)); gerr != nil {
			return gerr
		}
	}
	return nil
}

func (h freshHost) Kill(ctx context.Context, marker string) error {
	return session.Sh(h.s.sh).KillStep(ctx, marker)
}

// goneAfterSignal checks whether a command that died of a signal died with
// its container. A stopped or removed container SIGKILLs its processes, so
// for SIGKILL the check waits for the engine to record the container's exit.
func (s *Sandbox) goneAfterSignal(ctx context.Context, code int) error {
	if code == 128+9 || code < 0 {
		return s.settledGone(ctx, 4)
	}
	return s.checkRunning(ctx)
}
