package evidence_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/evidence"
	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/local"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

func runShPath(t *testing.T) (*task.Task, *trajectory.Trajectory) {
	t.Helper()
	dir := filepath.Join("..", "examples", "run-sh-path")
	tk, err := task.Load(filepath.Join(dir, "task.yaml"))
	require.NoError(t, err)
	trs, err := trajectory.Load(filepath.Join(dir, "trajectory.json"))
	require.NoError(t, err)
	return tk, trs[0]
}

// countingResetter counts the sandboxes handed out and given back.
type countingResetter struct {
	*reset.Resetter
	out, back int
}

func (c *countingResetter) Reset(ctx context.Context, tk *task.Task, tr *trajectory.Trajectory, k int) (*reset.Episode, error) {
	c.out++
	return c.Resetter.Reset(ctx, tk, tr, k)
}

func (c *countingResetter) Release(sb sandbox.Sandbox) {
	c.back++
	c.Resetter.Release(sb)
}

func newResetter(t *testing.T) *countingResetter {
	t.Helper()
	rt, err := local.New()
	require.NoError(t, err)
	rp, err := replayer.New()
	require.NoError(t, err)
	rs, err := reset.New(rt, rp, reset.WithPoolOptions(pool.WithSize(1)))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rs.Close(context.Background())) })
	return &countingResetter{Resetter: rs}
}

func TestScoreReplaysActions(t *testing.T) {
	tk, ref := runShPath(t)
	move := ref.Steps[9] // mv scripts/run.sh run.sh && chmod +x run.sh
	one := 1
	lied := move
	lied.Observation = &trajectory.Observation{ExitCode: &one} // recorded live as failing
	tests := []struct {
		name     string
		actions  []trajectory.Step
		verifier bool
		score    float64
		diverged []int
	}{
		{"at k", nil, false, 1.0 / 3, nil},
		{"after the move", []trajectory.Step{move}, false, 1, nil},
		{"with the verifier", []trajectory.Step{move}, true, 1, nil},
		{"a different exit code is reported", []trajectory.Step{lied}, false, 1, []int{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := newResetter(t)
			res, err := evidence.Score(context.Background(), evidence.Replay{RS: rs}, evidence.State{Task: tk, Ref: ref, K: 9, Actions: tt.actions}, tt.verifier)
			require.NoError(t, err)
			assert.InDelta(t, tt.score, res.Score, 1e-9)
			assert.Len(t, res.Rubric, 2)
			assert.Equal(t, tt.verifier, res.Verifier != nil)
			if tt.verifier {
				assert.True(t, res.Verifier.Passed, res.Verifier.Output)
			}
			assert.Equal(t, tt.diverged, res.Cost.Diverged)
			assert.Equal(t, 9+len(tt.actions), res.Cost.StepsReplayed)
			assert.Equal(t, "replay", res.Cost.Source)
			assert.Equal(t, 1, rs.out)
			assert.Equal(t, 1, rs.back, "the scratch sandbox is removed")
		})
	}
}

type failingSource struct{}

func (failingSource) Materialize(context.Context, evidence.State) (*evidence.Scratch, error) {
	return nil, errors.New("no sandbox")
}

func TestScoreNamesTheState(t *testing.T) {
	tk, ref := runShPath(t)
	_, err := evidence.Score(context.Background(), failingSource{}, evidence.State{Task: tk, Ref: ref, K: 3}, false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "evidence for run-sh-path at k=3 + 0 actions: no sandbox")
}
