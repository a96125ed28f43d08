package server

import (
	"context"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// Reap intervals of a long-running server: a create the dead process had
// in flight may land in the engine after the start-up reap, so the first
// sweep comes soon, then one now and then.
const (
	FirstReap   = 5 * time.Second
	ReapEvery   = time.Minute
	reapTimeout = time.Minute
)

// ReapLoop removes the sandboxes dead rbx processes left (sandbox.Reap with
// its defaults) after first, then every interval, until ctx ends, and hands
// each round's result to report (which may be nil).
func ReapLoop(ctx context.Context, rt sandbox.Reapable, first, every time.Duration, report func(removed []sandbox.Info, err error)) {
	wait := first
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		rctx, cancel := context.WithTimeout(ctx, reapTimeout)
		removed, err := sandbox.Reap(rctx, rt)
		cancel()
		if report != nil && ctx.Err() == nil {
			report(removed, err)
		}
		wait = every
	}
}
