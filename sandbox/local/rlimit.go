package local

import (
	"context"
	"fmt"
	"os/exec"

	"golang.org/x/sys/unix"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// ulimits are the only Spec.Limits the local backend applies: the fsize and
// nofile limits of the shells it starts, set with prlimit(2) (Go cannot set
// a child's rlimits between fork and exec). The session shell gets them
// before its first step; an exec-mode shell starts behind a gate (see
// gatedCommand). nofile cannot rise above rbx's own hard limit (it is
// clamped to it).
type ulimits struct{ fsize, nofile int64 }

// gateScript waits for its stdin to close — once its limits are set — and
// then execs the real command with stdin from /dev/null. The command runs
// with the same argv as it would unwrapped.
const gateScript = `read -r _; exec "$0" "$@" </dev/null`

// gatedCommand is name args... started behind the gate: without it an
// exec-mode step starts at once and can run (and fork) before prlimit.
func gatedCommand(name string, args ...string) *exec.Cmd {
	return exec.Command("/bin/sh", append([]string{"-c", gateScript, name}, args...)...)
}

// startGated starts cmd (from gatedCommand), sets limits on it, and opens
// the gate. On failure nothing is left running.
func startGated(cmd *exec.Cmd, limits ulimits) error {
	gate, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	forkMu.RLock()
	err = cmd.Start()
	forkMu.RUnlock()
	if err != nil {
		return err
	}
	if err := limits.apply(cmd.Process.Pid); err != nil {
		killGroup(cmd.Process.Pid)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return err
	}
	return gate.Close()
}

// apply sets u on process pid; zero fields are left alone.
func (u ulimits) apply(pid int) error {
	if u.fsize > 0 {
		lim := unix.Rlimit{Cur: uint64(u.fsize), Max: uint64(u.fsize)}
		if err := unix.Prlimit(pid, unix.RLIMIT_FSIZE, &lim, nil); err != nil {
			return fmt.Errorf("set fsize ulimit: %w", err)
		}
	}
	if u.nofile > 0 {
		var own unix.Rlimit
		if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &own); err != nil {
			return fmt.Errorf("set nofile ulimit: %w", err)
		}
		n := min(uint64(u.nofile), own.Max)
		if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: n, Max: n}, nil); err != nil {
			return fmt.Errorf("set nofile ulimit: %w", err)
		}
	}
	return nil
}

var _ sandbox.DiskBounder = (*Runtime)(nil)

// DiskBound returns sandbox.DiskBoundFileSize: each file is bounded by the
// fsize ulimit, nothing bounds the total.
func (r *Runtime) DiskBound(context.Context) (sandbox.DiskBound, string, error) {
	return sandbox.DiskBoundFileSize, "local backend: no isolation, the fsize ulimit only", nil
}
