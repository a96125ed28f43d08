package reset_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/rbx-sandbox/rbx/capacity"
	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox/local"
)

// TestHoldGroupsNeverDeadlock (local runtime): more groups than the budget
// can serve at once, of one class, round after round, each member
// released as soon as it is reset. A hold that counted idle sandboxes
// without claiming them let groups each get part of their members and
// wait for the rest, holding the whole budget: every waiter then stalled
// until its deadline. Every group must be served, within the budget.
func TestHoldGroupsNeverDeadlock(t *testing.T) {
	rt, err := local.New()
	require.NoError(t, err)
	rp, err := replayer.New()
	require.NoError(t, err)
	const budget, group, groups, rounds = 8, 4, 6, 8
	b, err := capacity.New(budget)
	require.NoError(t, err)
	r, err := reset.New(rt, rp, reset.WithBudget(b), reset.WithWarm(budget), reset.WithPoolOptions(pool.WithSize(budget)),
		reset.WithCapacityWait(5*time.Second))
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	tk, traj := trivial("g", 1)
	tk.Image = ""
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var mu sync.Mutex
	peak := 0
	var g errgroup.Group
	for range groups {
		g.Go(func() error {
			for range rounds {
				h, err := r.Hold(ctx, tk, traj, 1, group)
				if err != nil {
					return err
				}
				// As rbx serve does: the group's episodes start once every
				// member is reset, so a member keeps its sandbox until then.
				var members errgroup.Group
				eps := make([]*reset.Episode, group)
				for i := range group {
					members.Go(func() error {
						ep, err := r.ResetHeld(ctx, h, tk, traj, 1)
						eps[i] = ep
						return err
					})
				}
				err = members.Wait()
				h.Close()
				mu.Lock()
				peak = max(peak, b.Stats().Live)
				mu.Unlock()
				for _, ep := range eps {
					if ep != nil && ep.Sandbox != nil {
						r.Release(ep.Sandbox)
					}
				}
				if err != nil {
					return err
				}
			}
			return nil
		})
	}
	require.NoError(t, g.Wait(), "every group served before its deadline")
	assert.LessOrEqual(t, peak, budget)
	assert.LessOrEqual(t, b.Stats().Peak, budget)
}

// TestHoldGroupOverBudget: a group larger than the whole budget is
// refused at once with capacity.ErrTooLarge, idle sandboxes or not: no
// wait, and nothing a retry could change.
func TestHoldGroupOverBudget(t *testing.T) {
	rt, err := local.New()
	require.NoError(t, err)
	rp, err := replayer.New()
	require.NoError(t, err)
	b, err := capacity.New(2)
	require.NoError(t, err)
	r, err := reset.New(rt, rp, reset.WithBudget(b), reset.WithWarm(2), reset.WithPoolOptions(pool.WithSize(2)),
		reset.WithCapacityWait(5*time.Second))
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	tk, traj := trivial("big", 1)
	tk.Image = ""
	ctx := context.Background()
	h, err := r.Hold(ctx, tk, traj, 1, 2) // warms the class: idle sandboxes after
	require.NoError(t, err)
	h.Close()
	start := time.Now()
	_, err = r.Hold(ctx, tk, traj, 1, 3)
	require.ErrorIs(t, err, capacity.ErrTooLarge)
	assert.Less(t, time.Since(start), time.Second, "refused at once, not after the capacity wait")
}
