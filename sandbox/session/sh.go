package session

import "context"

// Sh runs a script of rbx's own (a kill) in the sandbox with a POSIX sh,
// to its end; only whether it could run matters. The container backends,
// which have no process API to signal with, kill through it.
type Sh func(ctx context.Context, script string) error

// KillStep kills every process of the step marked marker (see
// KillScript): a Killer for New and a FreshHost's Kill.
func (sh Sh) KillStep(ctx context.Context, marker string) error {
	return sh(ctx, KillScript(marker))
}

// KillPID kills process pid with SIGKILL: a Host's Kill, for a session
// shell that must not run on.
func (sh Sh) KillPID(ctx context.Context, pid string) error {
	return sh(ctx, "kill -9 "+pid)
}
