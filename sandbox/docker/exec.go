package docker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path"
	"sort"
	"strings"
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
		AttachStdout: true, AttachStderr: true,
		// stderr joins stdout in the shell so the two stay in order, as
		// in the session.
		Cmd: []string{sh, "-c", "exec 2>&1\n" + req.Command}, WorkingDir: s.resolve(req.Cwd),
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
	out := &capWriter{limit: s.outputCap}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = stdcopy.StdCopy(out, out, hj.Reader)
	}()
	timer := time.NewTimer(req.Timeout)
	defer timer.Stop()
	var res sandbox.ExecResult
	select {
	case <-done:
	case <-timer.C:
		res.TimedOut = true
	case <-ctx.Done():
		res.TimedOut = true // as the session does: the step stops, partial output kept
	}
	if res.TimedOut {
		out.freeze()
		s.killStep(context.WithoutCancel(ctx), marker)
		select {
		case <-done:
		case <-time.After(killGrace):
		}
		res.ExitCode = sandbox.ExitCodeTimeout
		res = out.result(res)
		res.Duration = time.Since(start)
		return res, nil
	}
	res = out.result(res)
	res.ExitCode, err = s.exitCode(ctx, ex.ID)
	res.Duration = time.Since(start)
	if err != nil {
		return res, fmt.Errorf("exec in %s: %w", s.id, s.gone(ctx, err))
	}
	if res.ExitCode < 0 || res.ExitCode >= 128 {
		// Killed by a signal: maybe the whole container went away.
		if gerr := s.goneAfterSignal(context.WithoutCancel(ctx), res.ExitCode); gerr != nil {
			return res, gerr
		}
	}
	return res, nil
}

// goneAfterSignal checks whether a command that died of a signal died with
// its container. A stopped or removed container SIGKILLs its processes and
// the engine records the container's exit a moment after the exec's, so
// for SIGKILL the check is repeated briefly.
func (s *Sandbox) goneAfterSignal(ctx context.Context, code int) error {
	tries := 1
	if code == 128+9 || code < 0 {
		tries = 4
	}
	for i := 0; i < tries; i++ {
		if i > 0 {
			time.Sleep(time.Duration(i) * 25 * time.Millisecond)
		}
		if err := s.checkRunning(ctx); err != nil {
			return err
		}
	}
	return nil
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

// resolve makes p absolute against the workdir; empty means the workdir.
func (s *Sandbox) resolve(p string) string {
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	return path.Join(s.workdir, p)
}

func envList(env map[string]string) []string {
	l := make([]string, 0, len(env)+1)
	for k, v := range env {
		l = append(l, k+"="+v)
	}
	sort.Strings(l)
	return l
}

func newMarker() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "x" + hex.EncodeToString(b[:]) + "-"
}
