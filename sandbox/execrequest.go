package sandbox

import (
	"context"
	"fmt"
	"time"
)

// Resolve is req as a backend runs it in a sandbox of mode def whose step
// timeout is stepTimeout: Mode filled in (def when empty) and checked,
// Timeout filled in when zero. It fails, before anything runs, on an
// unknown mode (ErrInvalidSpec) or a context already done.
func (req ExecRequest) Resolve(ctx context.Context, def Mode, stepTimeout time.Duration) (ExecRequest, error) {
	if req.Mode == "" {
		req.Mode = def
	}
	if !req.Mode.Valid() {
		return req, fmt.Errorf("%w: mode %q", ErrInvalidSpec, req.Mode)
	}
	if err := ctx.Err(); err != nil {
		return req, err
	}
	if req.Timeout <= 0 {
		req.Timeout = stepTimeout
	}
	return req, nil
}
