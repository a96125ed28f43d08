package intervene_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/intervene"
	"github.com/rbx-sandbox/rbx/policy"
	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/rollout"
	"github.com/rbx-sandbox/rbx/server"
	"github.com/rbx-sandbox/rbx/server/client"
)

// servedClient serves run-sh-path with rbx serve's server on loopback
// (local runtime) and returns a client of it.
func servedClient(t *testing.T, opts ...server.Option) *client.Client {
	t.Helper()
	tk, ref := example(t, "run-sh-path")
	rp, err := replayer.New()
	require.NoError(t, err)
	rs, err := reset.New(localRuntime(t), rp, reset.WithPoolOptions(pool.WithSize(2)))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rs.Close(context.Background())) })
	eng, err := curriculum.New()
	require.NoError(t, err)
	srv, err := server.New(context.Background(), rs, rp, eng, []server.Entry{{Task: tk, Ref: ref}}, opts...)
	require.NoError(t, err)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { hs.Close(); require.NoError(t, srv.Close(context.Background())) })
	c, err := client.New(hs.URL)
	require.NoError(t, err)
	return c
}

// TestInterveneThroughServer: the same loop with its episodes on rbx
// serve: rollouts are resets, interventions forks, evidence the server's
// route; the mask and the rescue are as in-process.
func TestInterveneThroughServer(t *testing.T) {
	tk, ref := example(t, "run-sh-path")
	c := servedClient(t, server.WithEvidenceInterval(0))
	const k = 4
	res := runOn(t, rollout.NewServed(c), tk, ref, noisyAt(9), policy.Expert{}, intervene.WithCheckpoint(k),
		intervene.WithRollouts(2), intervene.WithBudget(1))
	assert.Equal(t, 2, res.Rescued, "%+v", res.Rows)
	for _, row := range res.Rows {
		assert.Equal(t, 5, row.ForkT, "%v", row.Evidence)
		assert.Equal(t, 9, row.Cost.Calls, "one evidence call per state")
		assertMaskIsIntervener(t, ref, k, row)
	}
}

// TestInterveneThroughServerWaitsOutRateLimit: with the server's default
// limit of one evidence call per second and episode, the scan waits for
// Retry-After instead of failing.
func TestInterveneThroughServerWaitsOutRateLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits out the evidence rate limit (about 4 s)")
	}
	tk, ref := example(t, "run-sh-path")
	c := servedClient(t, server.WithEvidenceInterval(time.Second))
	start := time.Now()
	res := runOn(t, rollout.NewServed(c), tk, ref, noisyAt(9), policy.Expert{}, intervene.WithCheckpoint(8),
		intervene.WithRollouts(1), intervene.WithBudget(1))
	require.Equal(t, 1, res.Rescued, "%+v", res.Rows)
	assert.Equal(t, 1, res.Rows[0].ForkT, "%v", res.Rows[0].Evidence)
	assert.Equal(t, 5, res.Rows[0].Cost.Calls)
	assert.GreaterOrEqual(t, time.Since(start), 4*time.Second, "four waits of a second")
}
