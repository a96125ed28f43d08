package intervene_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/intervene"
	"github.com/rbx-sandbox/rbx/policy"
	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/local"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// example loads a bundled example's task and reference trajectory.
func example(t *testing.T, name string) (*task.Task, *trajectory.Trajectory) {
	t.Helper()
	trs, err := trajectory.Load(filepath.Join("..", "examples", name, "trajectory.json"))
	require.NoError(t, err)
	tk, err := task.Load(filepath.Join("..", "examples", name, "task.yaml"))
	require.NoError(t, err)
	return tk, trs[0]
}

func localRuntime(t *testing.T) sandbox.Runtime {
	t.Helper()
	rt, err := local.New()
	require.NoError(t, err)
	return rt
}

// run runs the loop in process on rt and returns its result.
func run(t *testing.T, rt sandbox.Runtime, tk *task.Task, ref *trajectory.Trajectory, pol, iv policy.Policy, opts ...intervene.Option) *intervene.Result {
	t.Helper()
	rp, err := replayer.New()
	require.NoError(t, err)
	rs, err := reset.New(rt, rp, reset.WithPoolOptions(pool.WithSize(2)))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rs.Close(context.Background())) })
	r, err := intervene.New(rs, pol, iv, opts...)
	require.NoError(t, err)
	return runWith(t, r, tk, ref)
}

// runOn runs the loop in env and returns its result.
func runOn(t *testing.T, env intervene.Env, tk *task.Task, ref *trajectory.Trajectory, pol, iv policy.Policy, opts ...intervene.Option) *intervene.Result {
	t.Helper()
	r, err := intervene.NewOn(env, pol, iv, opts...)
	require.NoError(t, err)
	return runWith(t, r, tk, ref)
}

func runWith(t *testing.T, r *intervene.Runner, tk *task.Task, ref *trajectory.Trajectory) *intervene.Result {
	t.Helper()
	res, err := r.Run(context.Background(), tk, ref)
	require.NoError(t, err)
	return res
}

// noisyAt is the noisy policy corrupting reference step j every time.
func noisyAt(j int) policy.Noisy {
	return policy.Noisy{Noise: policy.Noise{Steps: map[int]float64{j: 1}}}
}

// assertMaskIsIntervener checks a rescued row: the mask is true exactly
// on the intervener's actions, right after the fork point, and those are
// the reference's steps there (what the expert intervener plays).
func assertMaskIsIntervener(t *testing.T, ref *trajectory.Trajectory, k int, row intervene.Rollout) {
	t.Helper()
	require.NotNil(t, row.Trajectory, "rollout %d", row.Index)
	require.Positive(t, row.IntervenerSteps, "rollout %d", row.Index)
	acts := row.Trajectory.Steps[k:]
	require.Len(t, row.Mask, len(acts))
	for i, a := range acts {
		inside := i >= row.ForkT && i < row.ForkT+row.IntervenerSteps
		assert.Equal(t, inside, row.Mask[i], "rollout %d action %d: mask", row.Index, i)
		assert.Equal(t, inside, a.Intervened, "rollout %d action %d: step flag", row.Index, i)
		if inside {
			want := ref.Steps[k+i]
			assert.Equal(t, want.Action, a.Action, "rollout %d action %d", row.Index, i)
			assert.Equal(t, want.Command, a.Command, "rollout %d action %d: not the expert's step", row.Index, i)
		}
	}
	for _, s := range row.Trajectory.Steps[:k] {
		assert.False(t, s.Intervened, "the reference prefix is not intervened")
	}
	assert.InDelta(t, float64(row.IntervenerSteps)/float64(len(acts)), row.Share, 1e-9)
}
