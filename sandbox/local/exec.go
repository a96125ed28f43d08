package local

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// drainDelay bounds how long an exec-mode step waits for its output pipe to
// close after the shell exited: background jobs may hold it forever.
const drainDelay = 250 * time.Millisecond

// execShell is the shell exec mode runs commands with: bash where the host
// has it, POSIX sh otherwise.
func execShell() string {
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
}

// Exec runs req in the session shell or, in exec mode, in a fresh shell.
func (s *Sandbox) Exec(ctx context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error) {
	if err := s.alive(); err != nil {
		return sandbox.ExecResult{}, fmt.Errorf("exec in sandbox %q: %w", s.id, err)
	}
	req, err := req.Resolve(ctx, s.meta.Mode, s.meta.StepTimeout)
	if err != nil {
		return sandbox.ExecResult{}, fmt.Errorf("exec in sandbox %q: %w", s.id, err)
	}
	if path.IsAbs(req.Cwd) {
		rel, err := relPath(req.Cwd, "/")
		if err != nil {
			return sandbox.ExecResult{}, fmt.Errorf("exec in sandbox %q: cwd: %w", s.id, err)
		}
		req.Cwd = filepath.Join(s.root, rel)
	}
	var res sandbox.ExecResult
	if req.Mode == sandbox.ModeSession {
		res, err = s.runSession(ctx, req)
	} else {
		res, err = s.runExec(ctx, req)
	}
	if err != nil {
		return res, fmt.Errorf("exec in sandbox %q: %w", s.id, err)
	}
	return res, nil
}

// runExec runs req in a fresh shell, in its own process group, marked with
// RBX_STEP so a timeout also kills what it started elsewhere.
func (s *Sandbox) runExec(ctx context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error) {
	start := time.Now()
	var b [8]byte
	_, _ = rand.Read(b[:])
	marker := "RBX_STEP=exec-" + hex.EncodeToString(b[:])

	cmd := gatedCommand(s.rt.shell, "-c", req.Command)
	cmd.Dir = s.workdir
	if filepath.IsAbs(req.Cwd) {
		cmd.Dir = req.Cwd
	} else if req.Cwd != "" {
		cmd.Dir = filepath.Join(s.workdir, req.Cwd)
	}
	if fi, err := os.Stat(cmd.Dir); err != nil || !fi.IsDir() {
		// What `cd` in a session step would report: a failed command, not an error.
		msg := fmt.Sprintf("cd: %s: no such directory\n", req.Cwd)
		return sandbox.ExecResult{Output: []byte(msg), OutputBytes: int64(len(msg)), ExitCode: 1, Duration: time.Since(start)}, nil
	}
	// RBX_ROOT again after req.Env, so no step can hide its processes from Remove.
	cmd.Env = append(append(append([]string(nil), s.env...), sortedEnv(req.Env)...), rootEnv(s.root), marker)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := &cappedWriter{limit: s.meta.OutputCap}
	cmd.Stdout, cmd.Stderr = out, out // one pipe: interleaved as written
	cmd.WaitDelay = drainDelay
	if err := startGated(cmd, s.ulimits()); err != nil {
		return sandbox.ExecResult{}, fmt.Errorf("start shell: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	timer := time.NewTimer(req.Timeout)
	defer timer.Stop()
	var res sandbox.ExecResult
	var werr, cancelled error
	select {
	case werr = <-done:
	case <-timer.C:
		res.TimedOut = true
	case <-ctx.Done():
		cancelled = ctx.Err() // the step ends as on a timeout, but it is an error
	}
	if res.TimedOut || cancelled != nil {
		out.Close() // the partial output is what came before the deadline
		killGroup(cmd.Process.Pid)
		killByEnv(marker)
		werr = <-done
	}
	if cancelled != nil {
		return out.result(res), fmt.Errorf("step cancelled: %w", cancelled)
	}
	res = out.result(res)
	res.Duration = time.Since(start)
	switch {
	case res.TimedOut:
		res.ExitCode = sandbox.ExitCodeTimeout
	case cmd.ProcessState != nil:
		res.ExitCode = exitStatus(cmd.ProcessState)
	}
	var exitErr *exec.ExitError
	if werr != nil && !errors.As(werr, &exitErr) && !errors.Is(werr, exec.ErrWaitDelay) {
		return res, fmt.Errorf("wait shell: %w", werr)
	}
	return res, nil
}

func sortedEnv(env map[string]string) []string {
	kv := make([]string, 0, len(env))
	for k, v := range env {
		kv = append(kv, k+"="+v)
	}
	sort.Strings(kv)
	return kv
}

// cappedWriter keeps the first limit bytes and counts all of them. It is
// shared by stdout and stderr and closed when the step times out.
type cappedWriter struct {
	mu     sync.Mutex
	limit  int
	buf    []byte
	total  int64
	closed bool
}

func (c *cappedWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return len(p), nil
	}
	c.total += int64(len(p))
	if room := c.limit - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// Close makes later writes vanish.
func (c *cappedWriter) Close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
}

func (c *cappedWriter) result(r sandbox.ExecResult) sandbox.ExecResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	r.Output = c.buf
	r.OutputBytes = c.total
	r.Truncated = c.total > int64(len(c.buf))
	return r
}
