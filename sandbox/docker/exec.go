package docker

import (
	"context"
	"fmt"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// killGrace is how long a killed step's streams may take to close.
const killGrace = 2 * time.Second

// execFresh runs req in a new exec (exec mode): nothing persists between
// commands. Its processes carry RBX_STEP=<marker> so a timeout can kill them.
func (s *Sandbox) execFresh(ctx context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error) {
	start := time.Now()
	sh, err := s.execShell(ctx)
	if err != nil {
		return sandbox.ExecResult{}, fmt.Errorf("exec in %s: %w", s.id, s.gone(ctx, err))
	}
	marker := newMarker()
	ex, err := s.rt.cli.ContainerExecCreate(ctx, s.id, container.ExecOptions{
		AttachStdout: true, AttachStderr: true, User: s.execUser,
		Cmd: []string{sh, "-c", freshScript(req)}, WorkingDir: s.workdir,
		Env: append(envList(req.Env), "RBX_STEP="+marker),
	})
	if err != nil {
		return sandbox.ExecResult{}, fmt.Errorf("exec in %s: %w", s.id, s.gone(ctx, err))
	}
	hj, err := s.rt.cli.ContainerExecAttach(ctx, ex.ID, container.ExecAttachOptions{})
	if err != nil {
		return sandbox.ExecResult{}, fmt.Errorf("exec in %s: attach: %w", s.id, s.gone(ctx, err))
	}
	defer hj.Close()
	out := &sandbox.CapWriter{Limit: s.outputCap}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = stdcopy.StdCopy(out, out, hj.Reader)
	}()
	timer := time.NewTimer(req.Timeout)
	defer timer.Stop()
	var res sandbox.ExecResult
	var cancelled error
	select {
	case <-done:
	case <-timer.C:
		res.TimedOut = true
	case <-ctx.Done():
		cancelled = ctx.Err() // the step stops as on a timeout, but it is an error
	}
	if res.TimedOut || cancelled != nil {
		out.Freeze()
		s.killStep(context.WithoutCancel(ctx), marker)
		select {
		case <-done:
		case <-time.After(killGrace):
		}
		res.ExitCode = sandbox.ExitCodeTimeout
		res = out.Result(res)
		res.Duration = time.Since(start)
		if cancelled != nil {
			res.ExitCode = -1
			return res, fmt.Errorf("exec in %s: step cancelled: %w", s.id, cancelled)
		}
		return res, nil
	}
	res = out.Result(res)
	res.ExitCode, err = s.exitCode(ctx, ex.ID)
	res.Duration = time.Since(start)
	if err != nil {
		return res, fmt.Errorf("exec in %s: %w", s.id, s.gone(ctx, err))
	}
	switch {
	case res.ExitCode < 0 || res.ExitCode >= 128:
		// Killed by a signal: maybe the whole container went away.
		if gerr := s.goneAfterSignal(context.WithoutCancel(ctx), res.ExitCode); gerr != nil {
			return res, fmt.Errorf("exec in %s: %w", s.id, gerr)
		}
		s.markOOM(ctx, &res)
	case res.ExitCode == 126:
		// The engine reports an exec it could not start because the
		// container stopped or went away ("cannot exec in a stopped
		// state") as exit 126 with its message for output.
		if gerr := s.checkRunning(context.WithoutCancel(ctx)); gerr != nil {
			return res, fmt.Errorf("exec in %s: %w", s.id, gerr)
		}
	}
	return res, nil
}

// freshScript is the exec-mode script for req. stderr joins stdout in the
// shell so the two stay in order, and a missing Cwd fails like a shell's cd
// (as in the session) rather than as an engine error.
func freshScript(req sandbox.ExecRequest) string {
	script := "exec 2>&1\n"
	if req.Cwd != "" {
		script += "cd -- " + session.Quote(req.Cwd) + " || exit\n"
	}
	return script + req.Command
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
