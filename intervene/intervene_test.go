package intervene_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/intervene"
	"github.com/rbx-sandbox/rbx/policy"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
)

// noisyRescued: the noisy policy wipes the work at reference step 9 (its
// clean-up run in the working tree) in every rollout from k=4; the expert
// intervenes for one action from the fork point the evidence gives (just
// before step 9: the rubric drops there) and the policy finishes. Every
// failed rollout is rescued (the bar is 90 %), with a mask of exactly the
// intervener's action, within the shift filter; with a budget of 4 (the
// expert plays the rest: 3 of 8 actions) and a filter at 0.25, every
// rescued trajectory is shift_exceeded and dropped.
func noisyRescued(t *testing.T, rt sandbox.Runtime, rollouts int) {
	tk, ref := example(t, "run-sh-path")
	const k = 4
	res := run(t, rt, tk, ref, noisyAt(9), policy.Expert{}, intervene.WithCheckpoint(k), intervene.WithRollouts(rollouts),
		intervene.WithBudget(1), intervene.WithMaxShare(0.5))
	assert.Equal(t, rollouts, res.Failed, "the noisy policy fails every rollout: %+v", res)
	assert.GreaterOrEqual(t, res.RescueRate, 0.9, "%+v", res)
	assert.Zero(t, res.Errors, "%+v", res.Rows)
	for _, row := range res.Rows {
		require.Equal(t, intervene.OutcomeRescued, row.Outcome, "%+v", row)
		assert.Equal(t, 5, row.ForkT, "the evidence drops at step 9 = k+5: %v", row.Evidence)
		assert.Equal(t, 1, row.IntervenerSteps)
		assertMaskIsIntervener(t, ref, k, row)
		assert.False(t, row.ShiftExceeded)
		assert.True(t, row.Kept)
		assert.Positive(t, row.TokenShare, "the reference's token counts ride along")
	}
	assert.Equal(t, rollouts, res.Kept)
	t.Logf("rollouts %d, failed %d, rescued %d (%.0f%%), kept %d", res.Rollouts, res.Failed, res.Rescued, 100*res.RescueRate, res.Kept)

	dir := t.TempDir()
	require.NoError(t, intervene.WriteFiles(dir, res))
	chats := readLines(t, filepath.Join(dir, intervene.FileOpenAI))
	require.Len(t, chats, rollouts)
	var c intervene.Chat
	require.NoError(t, json.Unmarshal(chats[0], &c))
	var flagged []int
	for i, m := range c.Messages {
		var msg struct {
			Role       string `json:"role"`
			Intervened *bool  `json:"intervened"`
		}
		require.NoError(t, json.Unmarshal(m, &msg))
		require.NotNil(t, msg.Intervened, "message %d has no intervened flag", i)
		if *msg.Intervened {
			flagged = append(flagged, i)
		}
	}
	first := c.PrefixMessages + 2*5 // after the prompt and the 5 kept policy actions
	assert.Equal(t, []int{first, first + 1}, flagged, "the intervener's tool call and its result")
	assert.Len(t, readLines(t, filepath.Join(dir, intervene.FileTrajectories)), rollouts)
	assert.Len(t, readLines(t, filepath.Join(dir, intervene.FileATIF)), rollouts)
	assert.Empty(t, readLines(t, filepath.Join(dir, intervene.FileDropped)))

	// Above the threshold: marked and dropped.
	res = run(t, rt, tk, ref, noisyAt(9), policy.Expert{}, intervene.WithCheckpoint(k), intervene.WithRollouts(2),
		intervene.WithBudget(4), intervene.WithMaxShare(0.25))
	assert.Equal(t, 2, res.Rescued, "%+v", res.Rows)
	assert.Equal(t, 2, res.Dropped)
	assert.Zero(t, res.Kept)
	for _, row := range res.Rows {
		assert.Equal(t, 3, row.IntervenerSteps, "steps 9-11, the rest of the reference")
		assert.InDelta(t, 3.0/8, row.Share, 1e-9)
		assert.True(t, row.ShiftExceeded)
		assert.False(t, row.Kept)
		assertMaskIsIntervener(t, ref, k, row)
	}
	dir = t.TempDir()
	require.NoError(t, intervene.WriteFiles(dir, res))
	assert.Empty(t, readLines(t, filepath.Join(dir, intervene.FileTrajectories)), "the filter drops them")
	assert.Len(t, readLines(t, filepath.Join(dir, intervene.FileDropped)), 2)
}

func TestInterveneNoisyLocal(t *testing.T) {
	noisyRescued(t, localRuntime(t), 3)
}

func TestIntegrationInterveneNoisyDocker(t *testing.T) {
	noisyRescued(t, dockertest.Runtime(t, "rbx/busybox:latest"), 10)
}

// TestInterveneSuccessNeedsNoIntervention: rollouts the policy wins alone
// are counted and left alone.
func TestInterveneSuccessNeedsNoIntervention(t *testing.T) {
	tk, ref := example(t, "run-sh-path")
	res := run(t, localRuntime(t), tk, ref, policy.Expert{}, policy.Expert{}, intervene.WithCheckpoint(8), intervene.WithRollouts(2))
	assert.Equal(t, 2, res.Succeeded)
	assert.Zero(t, res.Failed)
	for _, row := range res.Rows {
		assert.Equal(t, -1, row.ForkT)
		assert.Nil(t, row.Trajectory)
	}
}

func readLines(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	var out [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		out = append(out, append([]byte(nil), sc.Bytes()...))
	}
	require.NoError(t, sc.Err())
	return out
}

// TestInterveneForksEarlierOnFailure: in run-sh-path the noisy policy's
// misplaced edit at step 6 leaves the script summing the wrong column,
// which no rubric item checks: the evidence rises to 1 when the script is
// moved to the root (t=6), too late for an intervention to fix the edit.
// Further attempts fork budget actions earlier until the expert's
// intervention covers step 6 (t=2, the third attempt).
func TestInterveneForksEarlierOnFailure(t *testing.T) {
	tk, ref := example(t, "run-sh-path")
	const k = 4
	res := run(t, localRuntime(t), tk, ref, noisyAt(6), policy.Expert{}, intervene.WithCheckpoint(k), intervene.WithRollouts(1),
		intervene.WithBudget(2), intervene.WithAttempts(3))
	require.Len(t, res.Rows, 1)
	row := res.Rows[0]
	require.Equal(t, intervene.OutcomeRescued, row.Outcome, "%+v", row)
	assert.Equal(t, 3, row.Attempts)
	assert.Equal(t, 2, row.ForkT)
	assertMaskIsIntervener(t, ref, k, row)

	res = run(t, localRuntime(t), tk, ref, noisyAt(6), policy.Expert{}, intervene.WithCheckpoint(k), intervene.WithRollouts(1),
		intervene.WithBudget(2), intervene.WithAttempts(1))
	assert.Equal(t, intervene.OutcomeNotRescued, res.Rows[0].Outcome, "one attempt at the plateau is not enough")
	assert.Equal(t, 6, res.Rows[0].ForkT)
}
