package rollout_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/rollout"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/local"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// runSHPath loads the run-sh-path example's task and reference.
func runSHPath(t *testing.T) (*task.Task, *trajectory.Trajectory) {
	t.Helper()
	trs, err := trajectory.Load(filepath.Join("..", "examples", "run-sh-path", "trajectory.json"))
	require.NoError(t, err)
	tk, err := task.Load(filepath.Join("..", "examples", "run-sh-path", "task.yaml"))
	require.NoError(t, err)
	return tk, trs[0]
}

// countingResetter is a resetter on the local runtime that counts its
// releases.
type countingResetter struct {
	*reset.Resetter
	released atomic.Int32
}

func (c *countingResetter) Release(sb sandbox.Sandbox) {
	c.released.Add(1)
	c.Resetter.Release(sb)
}

func localResetter(t *testing.T) *countingResetter {
	t.Helper()
	rt, err := local.New(local.WithBaseDir(t.TempDir()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close() })
	rp, err := replayer.New()
	require.NoError(t, err)
	rs, err := reset.New(rt, rp, reset.WithPoolOptions(pool.WithSize(2)))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rs.Close(context.Background())) })
	return &countingResetter{Resetter: rs}
}

func str(s string) *string { return &s }

func TestLocalDo(t *testing.T) {
	tk, ref := runSHPath(t)
	rs := localResetter(t)
	tests := []struct {
		name    string
		timeout time.Duration
		action  trajectory.Step
		over    bool
		output  string
		obsErr  bool
	}{
		{name: "observation", action: trajectory.Step{Action: trajectory.KindShell, Command: "echo hi"}, output: "hi"},
		{name: "an edit whose target is absent is the agent's", obsErr: true,
			action: trajectory.Step{Action: trajectory.KindEditFile, Path: "absent.txt", Old: str("a"), New: str("b")}},
		{name: "the episode timeout ends it", timeout: 300 * time.Millisecond, over: true,
			action: trajectory.Step{Action: trajectory.KindShell, Command: "sleep 5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := &rollout.Local{RS: rs, EpisodeTimeout: tt.timeout}
			ep, err := env.Open(context.Background(), tk, ref, 4)
			require.NoError(t, err)
			t.Cleanup(ep.Close)
			obs, err := ep.Do(context.Background(), tt.action, false)
			require.NotNil(t, obs, "the action ran")
			assert.Equal(t, tt.over, errors.Is(err, rollout.ErrEpisodeOver), "%v", err)
			if tt.over {
				return
			}
			require.NoError(t, err)
			assert.Contains(t, obs.Output, tt.output)
			assert.Equal(t, tt.obsErr, obs.Error != "", "%q", obs.Error)
		})
	}
}

func TestLocalVerify(t *testing.T) {
	tk, ref := runSHPath(t)
	env := &rollout.Local{RS: localResetter(t)}
	tests := []struct {
		name   string
		k      int
		passed bool
	}{
		{"the start fails", 0, false},
		{"the reference's end passes", ref.Len(), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ep, err := env.Open(context.Background(), tk, ref, tt.k)
			require.NoError(t, err)
			defer ep.Close()
			passed, err := ep.Verify(context.Background())
			require.NoError(t, err)
			assert.Equal(t, tt.passed, passed)
		})
	}
}

func TestLocalCloseIsIdempotent(t *testing.T) {
	tk, ref := runSHPath(t)
	rs := localResetter(t)
	ep, err := (&rollout.Local{RS: rs}).Open(context.Background(), tk, ref, 4)
	require.NoError(t, err)
	ep.Close()
	ep.Close()
	assert.Equal(t, int32(1), rs.released.Load())
}

// play carries out the reference's steps k.. k+n-1 in ep and records them.
func play(t *testing.T, ep rollout.Episode, ref *trajectory.Trajectory, k, n int) []trajectory.Step {
	t.Helper()
	var acts []trajectory.Step
	for _, a := range ref.Steps[k : k+n] {
		obs, err := ep.Do(context.Background(), a, false)
		require.NoError(t, err)
		acts = append(acts, rollout.Record(a, *obs, false))
	}
	return acts
}

// TestLocalFork: the fork replays the parent's first t actions into a
// fresh sandbox, keeps their intervened flags, and continues from there.
func TestLocalFork(t *testing.T) {
	tk, ref := runSHPath(t)
	env := &rollout.Local{RS: localResetter(t)}
	const k = 4
	parent, err := env.Open(context.Background(), tk, ref, k)
	require.NoError(t, err)
	acts := play(t, parent, ref, k, 3) // write scripts/run.sh, run it, edit it
	acts[1].Intervened = true
	parent.Close()

	fork, inherited, err := env.Fork(context.Background(), parent, acts, 2)
	require.NoError(t, err)
	defer fork.Close()
	require.Len(t, inherited, 2)
	for i, a := range inherited {
		assert.Equal(t, acts[i].Action, a.Action, "action %d", i)
		assert.Equal(t, acts[i].Intervened, a.Intervened, "action %d", i)
		assert.NotNil(t, a.Observation, "action %d: as the fork observed it", i)
	}
	obs, err := fork.Do(context.Background(), ref.Steps[k+2], false)
	require.NoError(t, err)
	assert.Empty(t, obs.Error, "the edit finds the script the fork's replay wrote")
}

// TestLocalEvidence: the rubric after t actions, scored once per state for
// the life of the Local.
func TestLocalEvidence(t *testing.T) {
	tk, ref := runSHPath(t)
	rs := localResetter(t)
	env := &rollout.Local{RS: rs}
	const k = 4
	parent, err := env.Open(context.Background(), tk, ref, k)
	require.NoError(t, err)
	acts := play(t, parent, ref, k, 1) // writes scripts/run.sh
	parent.Close()
	tests := []struct {
		name     string
		env      *rollout.Local
		t        int
		score    float64
		memoised bool
	}{
		{"before the script", env, 0, 0, false},
		{"after it", env, 1, 1.0 / 3, false},
		{"after it again", env, 1, 1.0 / 3, true},
		{"another Local's memo", &rollout.Local{RS: rs}, 1, 1.0 / 3, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, memoised, err := tt.env.Evidence(context.Background(), parent, acts, tt.t)
			require.NoError(t, err)
			assert.InDelta(t, tt.score, res.Score, 1e-9, "%+v", res.Rubric)
			assert.Equal(t, tt.memoised, memoised)
		})
	}
}
