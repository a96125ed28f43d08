package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/rbx-sandbox/rbx/sandbox"
)

var _ sandbox.Terminal = (*Sandbox)(nil)

// StartTerminal starts req.Argv on a new pseudo-terminal, as the leader of
// a new session whose controlling terminal it is, with the sandbox's
// environment plus req.Env and its ulimits (set behind the same gate as
// exec-mode shells, opened by one newline typed into the terminal).
func (s *Sandbox) StartTerminal(ctx context.Context, req sandbox.TerminalRequest) (sandbox.TerminalProcess, error) {
	if err := s.alive(); err != nil {
		return nil, fmt.Errorf("terminal in sandbox %q: %w", s.id, err)
	}
	if err := req.Check(s.id); err != nil {
		return nil, err
	}
	dir := s.workdir
	if req.Cwd != "" {
		p := req.Cwd
		if !path.IsAbs(p) {
			p = path.Join(s.meta.Workdir, p)
		}
		rel, err := relPath(p, "/")
		if err != nil {
			return nil, fmt.Errorf("terminal in sandbox %q: cwd: %w", s.id, err)
		}
		dir = filepath.Join(s.root, rel)
	}
	rows, cols := req.TerminalSize()
	master, slave, err := openPTY(rows, cols)
	if err != nil {
		return nil, fmt.Errorf("terminal in sandbox %q: %w", s.id, err)
	}
	defer slave.Close() // the child holds its own copies
	cmd := exec.Command("/bin/sh", append([]string{"-c", `read -r _; exec "$0" "$@"`}, req.Argv...)...)
	cmd.Dir, cmd.Env = dir, s.terminalEnv(req.Env)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	forkMu.RLock()
	err = cmd.Start()
	forkMu.RUnlock()
	if err != nil {
		_ = master.Close()
		return nil, fmt.Errorf("terminal in sandbox %q: %w", s.id, err)
	}
	t := &terminal{File: master, cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(t.done) }()
	if err := s.ulimits().apply(cmd.Process.Pid); err != nil {
		_ = t.Close()
		return nil, fmt.Errorf("terminal in sandbox %q: %w", s.id, err)
	}
	if _, err := master.Write([]byte("\n")); err != nil { // open the gate
		_ = t.Close()
		return nil, fmt.Errorf("terminal in sandbox %q: %w", s.id, err)
	}
	return t, nil
}

// terminalEnv is the sandbox's environment, then extra, then RBX_ROOT again
// so that extra cannot hide the terminal's processes from Remove.
func (s *Sandbox) terminalEnv(extra map[string]string) []string {
	env := append([]string(nil), s.env...)
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+extra[k])
	}
	return append(env, rootEnv(s.root))
}

// terminal is the master side of a local pseudo-terminal.
type terminal struct {
	*os.File
	cmd  *exec.Cmd
	done chan struct{}
}

// Read returns io.EOF once the terminal is hung up: Linux reports EIO on
// the master when the last slave descriptor closed.
func (t *terminal) Read(p []byte) (int, error) {
	n, err := t.File.Read(p)
	if err != nil && errors.Is(err, syscall.EIO) {
		return n, io.EOF
	}
	return n, err
}

// Close hangs up (the session leader gets SIGHUP), kills what is left of
// its process group and reaps it.
func (t *terminal) Close() error {
	err := t.File.Close()
	killGroup(t.cmd.Process.Pid)
	<-t.done
	return err
}
