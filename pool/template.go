package pool

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// Create makes one sandbox from t.Spec on rt and runs t.Prepare on it: the
// one create-and-prepare path, for a pool's sandboxes and for a command's
// single one (rbx replay). When Prepare fails the sandbox is removed, even
// if ctx was cancelled, and the error says so.
func (t Template) Create(ctx context.Context, rt Creator) (sandbox.Sandbox, error) {
	sb, err := rt.Create(ctx, t.Spec)
	if err != nil {
		return nil, err
	}
	if t.Prepare == nil {
		return sb, nil
	}
	if err := t.Prepare(ctx, sb); err != nil {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		rmErr := sb.Remove(rctx)
		if errors.Is(rmErr, sandbox.ErrNotFound) {
			rmErr = nil
		}
		return nil, errors.Join(fmt.Errorf("prepare sandbox %s: %w", sb.ID(), err), rmErr)
	}
	return sb, nil
}
