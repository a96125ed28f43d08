package local

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// shellProc is a running session shell and the plumbing around it.
type shellProc struct {
	cmd   *exec.Cmd
	shell *session.Shell
	stdin io.WriteCloser
	out   *os.File
	done  chan struct{} // closed once the shell was reaped
	code  int           // the shell's exit status, valid after done
}

// startShell starts session.StartCommand in dir with env, in its own process
// group, stdout and stderr on one pipe.
func startShell(ctx context.Context, dir string, env []string, limits ulimits, outputCap int, grace time.Duration) (_ *shellProc, err error) {
	cmd := exec.Command(session.StartCommand[0], session.StartCommand[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("start session shell: %w", err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		_ = stdin.Close()
		return nil, fmt.Errorf("start session shell: %w", err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	forkMu.RLock()
	err = cmd.Start()
	forkMu.RUnlock()
	_ = pw.Close() // the shell holds its own copy: EOF once it and its jobs are gone
	if err != nil {
		_ = pr.Close()
		_ = stdin.Close()
		return nil, fmt.Errorf("start session shell: %w", err)
	}
	p := &shellProc{cmd: cmd, stdin: stdin, out: pr, done: make(chan struct{}), code: -1}
	go p.wait()
	defer func() {
		if err != nil {
			p.stop()
		}
	}()
	if err := limits.apply(cmd.Process.Pid); err != nil {
		return nil, fmt.Errorf("start session shell: %w", err)
	}
	kill := func(_ context.Context, marker string) error {
		killByEnv("RBX_STEP=" + marker)
		return nil
	}
	p.shell, err = session.New(ctx, stdin, pr, kill, session.WithOutputCap(outputCap), session.WithGrace(grace))
	if err != nil {
		return nil, err
	}
	return p, nil
}

// wait reaps the shell, then kills what is left of its process group: once
// the shell is gone its background jobs are unreachable, and while they hold
// the output pipe the session would never see the shell exit.
func (p *shellProc) wait() {
	_ = p.cmd.Wait()
	if st := p.cmd.ProcessState; st != nil {
		p.code = exitStatus(st)
	}
	killGroup(p.cmd.Process.Pid)
	close(p.done)
}

// exited reports whether the shell process is gone.
func (p *shellProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// exitCode waits briefly for the shell to be reaped and returns its status.
func (p *shellProc) exitCode() (int, bool) {
	select {
	case <-p.done:
		return p.code, p.code >= 0
	case <-time.After(2 * time.Second):
		return 0, false
	}
}

// stop kills the shell's process group and releases the pipes.
func (p *shellProc) stop() {
	killGroup(p.cmd.Process.Pid)
	_ = p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(5 * time.Second): // unkillable (D state): leave it to init
	}
	_ = p.out.Close()
}
