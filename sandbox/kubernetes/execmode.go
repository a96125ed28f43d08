package kubernetes

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sort"
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
	pr, err := s.run(ctx, s.freshArgs(sh, marker, req), nil, out)
	if err != nil {
		return sandbox.ExecResult{}, fmt.Errorf("exec in %s: %w", s.id, s.gone(ctx, err))
	}
	defer pr.cancel()
	timer := time.NewTimer(req.Timeout)
	defer timer.Stop()
	var res sandbox.ExecResult
	var cancelled error
	select {
	case st := <-pr.status:
		res = out.Result(res)
		res.ExitCode, res.Duration = st.code, time.Since(start)
		if st.err != nil {
			return res, fmt.Errorf("exec in %s: %w", s.id, s.gone(ctx, st.err))
		}
		if st.code >= 128 {
			if gerr := s.checkRunning(context.WithoutCancel(ctx)); gerr != nil {
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
	pr.stop()
	res = out.Result(res)
	res.ExitCode, res.Duration = sandbox.ExitCodeTimeout, time.Since(start)
	if cancelled != nil {
		res.ExitCode = -1
		return res, fmt.Errorf("exec in %s: step cancelled: %w", s.id, cancelled)
	}
	return res, nil
}

// freshArgs is the exec-mode command line: the wrapper exports the step
// marker and req.Env, so that they are in the environment the step's shell
// starts with (where KillScript finds the marker), then execs sh -c with
// the step. stderr joins stdout in the shell so the two stay in order, and
// a missing Cwd fails like a shell's cd (as in the session).
func (s *Sandbox) freshArgs(sh, marker string, req sandbox.ExecRequest) []string {
	keys := make([]string, 0, len(req.Env))
	for k := range req.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	exports := "export RBX_STEP=" + marker
	for _, k := range keys {
		exports += " " + k + "=" + session.Quote(req.Env[k])
	}
	script := "exec 2>&1\n"
	if req.Cwd != "" {
		script += "cd -- " + session.Quote(req.Cwd) + " || exit\n"
	}
	return []string{"/bin/sh", "-c", s.wrap() + exports + `; exec "$0" -c "$1"`, sh, script + req.Command}
}

// killStep kills every process of a timed-out step, best effort.
func (s *Sandbox) killStep(ctx context.Context, marker string) {
	ctx, cancel := context.WithTimeout(ctx, killGrace)
	defer cancel()
	if _, _, err := s.runShort(ctx, session.KillScript(marker), nil, nil); err != nil {
		s.rt.cfg.log.Warn("kill timed-out step", "sandbox", s.id, "err", err)
	}
}

// execShell returns bash when the image has it, /bin/sh otherwise, probing
// once per sandbox with the image's own sh and PATH.
func (s *Sandbox) execShell(ctx context.Context) (string, error) {
	s.shMu.Lock()
	defer s.shMu.Unlock()
	if s.shell != "" {
		return s.shell, nil
	}
	var out lockedBuffer
	pr, err := s.run(ctx, []string{"/bin/sh", "-c", "command -v bash || true"}, nil, &out)
	if err != nil {
		return "", fmt.Errorf("detect shell: %w", err)
	}
	defer pr.cancel()
	select {
	case st := <-pr.status:
		if st.err != nil {
			return "", fmt.Errorf("detect shell: %w", st.err)
		}
	case <-ctx.Done():
		return "", fmt.Errorf("detect shell: %w", ctx.Err())
	}
	s.shell = "/bin/sh"
	if p := strings.TrimSpace(string(out.Bytes())); strings.HasPrefix(p, "/") {
		s.shell = p
	}
	return s.shell, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
