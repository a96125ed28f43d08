package reset_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/prefix"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox"
)

// TestIntegrationStageProvesAliveAndSettles: the stage re-proves its
// parked sandboxes in the background, so one killed behind its back is
// replaced before a reset could take it (and hand-outs do no I/O); after
// a take it waits for the burst to settle before restoring a replacement.
func TestIntegrationStageProvesAliveAndSettles(t *testing.T) {
	rt := dockerRuntime(t)
	rp, err := replayer.New()
	require.NoError(t, err)
	c, err := prefix.New()
	require.NoError(t, err)
	const settle = 1500 * time.Millisecond
	r, err := reset.New(rt, rp, reset.WithPrefixCache(c), reset.WithStaging(2), reset.WithPoolOptions(pool.WithSize(2)),
		reset.WithStageTimes(2*time.Second, settle))
	t.Cleanup(func() {
		if r != nil {
			_ = r.Close(context.Background())
		}
	})
	require.NoError(t, err)
	ctx := context.Background()
	tk, traj := trivial("stage-alive", 3)
	ep, err := r.Reset(ctx, tk, traj, 3)
	require.NoError(t, err)
	require.Equal(t, reset.CacheBuilt, ep.Cache)
	r.Release(ep.Sandbox)
	require.Eventually(t, func() bool { return r.Staged() == 2 }, time.Minute, 20*time.Millisecond)

	victim := r.StagedIDs()[0]
	require.NoError(t, rt.Client().ContainerKill(ctx, victim, "KILL"))
	require.Eventually(t, func() bool {
		ids := r.StagedIDs()
		return len(ids) == 2 && !slices.Contains(ids, victim)
	}, time.Minute, 20*time.Millisecond, "the dead sandbox is replaced in the background")

	ep, err = r.Reset(ctx, tk, traj, 3)
	require.NoError(t, err)
	t.Cleanup(func() { r.Release(ep.Sandbox) })
	assert.True(t, ep.Staged)
	assert.NotEqual(t, victim, ep.Sandbox.ID())
	res, err := ep.Sandbox.Exec(ctx, sandbox.ExecRequest{Command: "wc -l < count"})
	require.NoError(t, err)
	assert.Equal(t, "3\n", string(res.Output))

	// The stage waits for the take to settle before restoring its
	// replacement (a restore on busybox takes well under the settle).
	time.Sleep(settle / 2)
	assert.Equal(t, 1, r.Staged(), "no replacement inside the settle interval")
	require.Eventually(t, func() bool { return r.Staged() == 2 }, time.Minute, 20*time.Millisecond, "replaced after it")
}
