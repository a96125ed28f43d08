package local

import (
	"context"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// ulimits are the only Spec.Limits the local backend applies: the fsize and
// nofile limits of the shells it starts, set with prlimit(2) right after
// the shell started. The session shell has them before its first step; an
// exec-mode shell could in principle fork before they land (it has just
// exec'd, so it would have to beat one system call of ours). nofile cannot
// rise above rbx's own hard limit (it is clamped to it).
type ulimits struct{ fsize, nofile int64 }

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
