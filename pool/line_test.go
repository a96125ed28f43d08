package pool_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/capacity"
	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/sandbox"
)

// TestPoolServesWaitersInOrder: with the budget full, acquisitions of the
// class wait for sandboxes to come back; each one that comes back goes to
// the oldest waiter, whatever goroutine wakes first — none can lose every
// draw until its deadline.
func TestPoolServesWaitersInOrder(t *testing.T) {
	tests := []struct {
		name    string
		held    int // sandboxes in use, the budget's size
		waiters int
	}{
		// One sandbox in circulation: whoever has it has reported before
		// it comes back, so the order served is exactly observable.
		{name: "a few waiters", held: 1, waiters: 4},
		{name: "a long line", held: 1, waiters: 16},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rt := newFakeRuntime()
			rt.delay = 20 * time.Millisecond // dearer than a recycle: the pool keeps recycling
			b, err := capacity.New(tc.held)
			require.NoError(t, err)
			recycle := func(context.Context, sandbox.Sandbox) error { return nil }
			p := newPool(t, rt, pool.WithSize(0), pool.WithBudget(b), pool.WithRecycle(recycle))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			held := make([]sandbox.Sandbox, tc.held)
			for i := range held {
				held[i], err = p.Acquire(ctx)
				require.NoError(t, err)
			}
			type served struct {
				waiter int
				sb     sandbox.Sandbox
			}
			got := make(chan served, tc.waiters)
			for i := 0; i < tc.waiters; i++ {
				go func() {
					sb, err := p.Acquire(ctx)
					assert.NoError(t, err)
					got <- served{i, sb}
				}()
				// The next waiter starts after this one is in line.
				require.Eventually(t, func() bool { return p.Waiting() == i+1 }, 2*time.Second, time.Millisecond)
			}
			var order []int
			for _, sb := range held {
				p.Return(sb)
			}
			for len(order) < tc.waiters {
				select {
				case s := <-got:
					order = append(order, s.waiter)
					p.Return(s.sb) // to the next in line
				case <-ctx.Done():
					t.Fatalf("waiters served %v of %d", order, tc.waiters)
				}
			}
			for i, w := range order {
				assert.Equal(t, i, w, "served out of line: %v", order)
			}
			assert.Zero(t, rt.n.Load()-int64(tc.held), "no sandbox created beyond the held ones: %v", order)
		})
	}
}
