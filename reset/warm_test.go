package reset_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/capacity"
	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox/local"
	"github.com/rbx-sandbox/rbx/task"
)

// TestWarmFollowsDemand (local runtime): with WithWarm nothing is created
// before the first reset; a class that is asked for gets warm sandboxes;
// tasks of one image and limits share one class; a group waits for room
// and gets it by evicting the idle sandboxes of another class; the budget
// is never exceeded.
func TestWarmFollowsDemand(t *testing.T) {
	rt, err := local.New()
	require.NoError(t, err)
	rp, err := replayer.New()
	require.NoError(t, err)
	b, err := capacity.New(4)
	require.NoError(t, err)
	r, err := reset.New(rt, rp, reset.WithBudget(b), reset.WithWarm(4), reset.WithPoolOptions(pool.WithSize(4)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	ctx := context.Background()
	a1, traj := trivial("a1", 1)
	a2, _ := trivial("a2", 1)
	other, _ := trivial("other", 1)
	other.Limits.Memory = 64 << 20 // another class
	for _, tk := range []*task.Task{a1, a2, other} {
		tk.Image = ""
	}
	require.Equal(t, reset.ClassKey(a1), reset.ClassKey(a2), "one image and limits: one class")
	require.NotEqual(t, reset.ClassKey(a1), reset.ClassKey(other))
	time.Sleep(20 * time.Millisecond)
	assert.Zero(t, b.Stats().Live, "nothing before the first reset")

	for _, tk := range []*task.Task{a1, a2, a1} {
		ep, err := r.Reset(ctx, tk, traj, 1)
		require.NoError(t, err)
		r.Release(ep.Sandbox)
	}
	require.Eventually(t, func() bool { return idleOf(r, reset.ClassKey(a1)) >= 3 }, 5*time.Second, 10*time.Millisecond,
		"the class asked for is kept warm: %+v", r.Stats())

	h, err := r.Hold(ctx, other, traj, 1, 4) // all of the budget: a1's idle ones must go
	require.NoError(t, err)
	var held []*reset.Episode
	for range 4 {
		ep, err := r.ResetHeld(ctx, h, other, traj, 1)
		require.NoError(t, err)
		held = append(held, ep)
	}
	h.Close()
	st := b.Stats()
	assert.LessOrEqual(t, st.Peak, 4)
	assert.Equal(t, 4, st.States[capacity.InUse])
	assert.Zero(t, idleOf(r, reset.ClassKey(a1)), "evicted for the group")
	for _, ep := range held {
		r.Release(ep.Sandbox)
	}
}

func idleOf(r *reset.Resetter, class string) int {
	for _, s := range r.Stats() {
		if s.Key == class {
			return s.Idle
		}
	}
	return 0
}
