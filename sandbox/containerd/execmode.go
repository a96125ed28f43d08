package containerd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// execFresh runs req in a new exec (exec mode): nothing persists between
// commands. Its processes carry RBX_STEP=<marker> so a timeout can kill
// them.
func (s *Sandbox) execFresh(ctx context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error) {
	start := time.Now()
	for k := range req.Env {
		if !session.ValidEnvName(k) {
			return sandbox.ExecResult{}, fmt.Errorf("exec in %s: %w: env name %q: expected letters, digits and _", s.id, sandbox.ErrInvalidSpec, k)
		}
	}
	sh, err := s.execShell(ctx)
	if err != nil {
		return sandbox.ExecResult{}, fmt.Errorf("exec in %s: %w", s.id, s.gone(ctx, err))
	}
	marker := "x" + randomHex(8) + "-"
	out := &sandbox.CapWriter{Limit: s.outputCap}
	pr, err := s.run(ctx, []string{sh, "-c", freshScript(req)}, append(envList(req.Env), "RBX_STEP="+marker), s.workdir, nil, out)
	if err != nil {
		return sandbox.ExecResult{}, fmt.Errorf("exec in %s: %w", s.id, s.gone(ctx, err))
	}
	timer := time.NewTimer(req.Timeout)
	defer timer.Stop()
	var res sandbox.ExecResult
	var cancelled error
	select {
	case st := <-pr.status:
		code, err := pr.finish(ctx, st)
		res = out.Result(res)
		res.ExitCode, res.Duration = code, time.Since(start)
		if err != nil {
			return res, fmt.Errorf("exec in %s: %w", s.id, s.gone(ctx, err))
		}
		if code >= 128 {
			if gerr := s.goneAfterSignal(context.WithoutCancel(ctx), code); gerr != nil {
				return res, fmt.Errorf("exec in %s: %w", s.id, gerr)
			}
			s.markOOM(ctx, &res)
		}
		return res, nil
	case <-timer.C:
		res.TimedOut = true
	case <-ctx.Done():
		cancelled = ctx.Err() // the step stops as on a timeout, but it is an error
	}
	out.Freeze()
	s.killStep(context.WithoutCancel(ctx), marker)
	pr.delete(ctx)
	res = out.Result(res)
	res.ExitCode, res.Duration = sandbox.ExitCodeTimeout, time.Since(start)
	if cancelled != nil {
		res.ExitCode = -1
		return res, fmt.Errorf("exec in %s: step cancelled: %w", s.id, cancelled)
	}
	return res, nil
}

// freshScript is the exec-mode script for req. stderr joins stdout in the
// shell so the two stay in order, and a missing Cwd fails like a shell's
// cd (as in the session).
func freshScript(req sandbox.ExecRequest) string {
	script := "exec 2>&1\n"
	if req.Cwd != "" {
		script += "cd -- " + session.Quote(req.Cwd) + " || exit\n"
	}
	return script + req.Command
}

// goneAfterSignal checks whether a command that died of a signal died with
// its container; for SIGKILL it waits for the task's exit to be recorded.
func (s *Sandbox) goneAfterSignal(ctx context.Context, code int) error {
	if code == exitSIGKILL {
		return s.settledGone(ctx, 4)
	}
	return s.checkRunning(ctx)
}

// killStep kills every process of a timed-out step, best effort.
func (s *Sandbox) killStep(ctx context.Context, marker string) {
	ctx, cancel := context.WithTimeout(ctx, killGrace)
	defer cancel()
	if _, _, err := s.runShort(ctx, "/bin/sh", "-c", session.KillScript(marker)); err != nil {
		s.rt.log.Warn("kill timed-out step", "sandbox", s.id, "err", err)
	}
}

// execShell returns bash when the image has it, /bin/sh otherwise, probing
// once per sandbox.
func (s *Sandbox) execShell(ctx context.Context) (string, error) {
	s.shMu.Lock()
	defer s.shMu.Unlock()
	if s.shell != "" {
		return s.shell, nil
	}
	out, _, err := s.runShort(ctx, "/bin/sh", "-c", "command -v bash || true")
	if err != nil {
		return "", fmt.Errorf("detect shell: %w", err)
	}
	s.shell = "/bin/sh"
	if p := strings.TrimSpace(string(out)); strings.HasPrefix(p, "/") {
		s.shell = p
	}
	return s.shell, nil
}
