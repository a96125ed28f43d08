package session

import (
	"context"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// HostFuncs is a Host made of a backend sandbox's own methods (method
// values), so that each backend fills one in instead of writing the same
// adapter type again.
type HostFuncs struct {
	OpenFn         func(context.Context) (Conn, error)
	CheckRunningFn func(context.Context) error
	// SettledGoneFn is CheckRunning after the backend's settling (nil:
	// CheckRunningFn, for a backend whose API reports an end as it learns
	// it).
	SettledGoneFn func(context.Context) error
	GoneFn        func(context.Context, error) error
	MarkOOMFn     func(context.Context, *sandbox.ExecResult)
	// ShFn runs one of rbx's own scripts in the sandbox: Kill's.
	ShFn Sh
}

// Open implements Host.
func (h HostFuncs) Open(ctx context.Context) (Conn, error) { return h.OpenFn(ctx) }

// CheckRunning implements Host.
func (h HostFuncs) CheckRunning(ctx context.Context) error { return h.CheckRunningFn(ctx) }

// SettledGone implements Host.
func (h HostFuncs) SettledGone(ctx context.Context) error {
	if h.SettledGoneFn == nil {
		return h.CheckRunningFn(ctx)
	}
	return h.SettledGoneFn(ctx)
}

// Gone implements Host.
func (h HostFuncs) Gone(ctx context.Context, err error) error { return h.GoneFn(ctx, err) }

// MarkOOM implements Host.
func (h HostFuncs) MarkOOM(ctx context.Context, res *sandbox.ExecResult) { h.MarkOOMFn(ctx, res) }

// Kill implements Host: the shell's kill of one pid (Sh.KillPID).
func (h HostFuncs) Kill(ctx context.Context, pid string) error { return h.ShFn.KillPID(ctx, pid) }
