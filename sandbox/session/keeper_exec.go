package session

import (
	"context"
	"fmt"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// Exec runs req the way a container sandbox's Exec does: in req.Mode, or
// the sandbox's mode def when it is empty, with the sandbox's stepTimeout
// when req has none (see sandbox.ExecRequest.Resolve); exec mode with
// fresh (a new exec per step), session mode on the kept shell (Run).
// Every container backend dispatches alike, so that a mode means the same
// on each.
func (k *Keeper) Exec(ctx context.Context, req sandbox.ExecRequest, def sandbox.Mode, stepTimeout time.Duration,
	fresh func(context.Context, sandbox.ExecRequest) (sandbox.ExecResult, error)) (sandbox.ExecResult, error) {
	req, err := req.Resolve(ctx, def, stepTimeout)
	if err != nil {
		return sandbox.ExecResult{}, fmt.Errorf("exec in %s: %w", k.id, err)
	}
	if req.Mode == sandbox.ModeExec {
		return fresh(ctx, req)
	}
	return k.Run(ctx, req)
}
