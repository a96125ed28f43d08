package replayer_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

func pinned(p replayer.Comparison, out string, code int) *trajectory.Observation {
	return &trajectory.Observation{ExitCode: ptr(code), OutputSHA256: replayer.Digest(p, out), Pinned: true}
}

func TestReplayComparesPinnedDigests(t *testing.T) {
	const sumA = "sum 0123456789abcdef0123"
	tests := []struct {
		name    string
		step    trajectory.Step
		answers map[string]sandbox.ExecResult
		reason  reason.Reason // "" for no divergence
	}{
		{name: "same output", step: shell("echo a", pinned(replayer.CompareNormalized, "a\n", 0))},
		{name: "normalised digest ignores timings", step: shell("echo took 3ms", pinned(replayer.CompareNormalized, "took 9s\n", 0))},
		{name: "different output", step: shell("echo b", pinned(replayer.CompareNormalized, "a\n", 0)), reason: reason.Output},
		{name: "digest wins over recorded text",
			step: shell("echo a", &trajectory.Observation{Output: "something the source printed", ExitCode: ptr(0),
				OutputSHA256: replayer.Digest(replayer.CompareNormalized, "a\n"), Pinned: true})},
		{name: "exit code changed", step: shell("grep", pinned(replayer.CompareNormalized, "", 0)),
			answers: map[string]sandbox.ExecResult{"grep": {ExitCode: 1}}, reason: reason.ExitCode},
		{name: "wrong checksum diverges by default", step: shell("echo sum fedcba9876543210fedc", pinned(replayer.CompareNormalized, sumA, 0)),
			reason: reason.Output},
		{name: "hex masked where pinning found it varied",
			step: trajectory.Step{Action: trajectory.KindShell, Command: "echo sum fedcba9876543210fedc", Compare: "normalized_hex",
				Observation: pinned(replayer.CompareNormalizedHex, sumA, 0)}},
		{name: "ignored output still checks the exit code",
			step:    trajectory.Step{Action: trajectory.KindShell, Command: "false", Compare: "ignore", Observation: &trajectory.Observation{ExitCode: ptr(0), Pinned: true}},
			answers: map[string]sandbox.ExecResult{"false": {ExitCode: 1}}, reason: reason.ExitCode},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := replayer.New()
			require.NoError(t, err)
			traj := &trajectory.Trajectory{ID: "x", Steps: []trajectory.Step{tc.step}}
			rep, err := r.Replay(context.Background(), newFake(tc.answers), &task.Task{ID: "t"}, traj, 1)
			if tc.reason == "" {
				require.NoError(t, err)
				return
			}
			var se *replayer.StepError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.reason, se.Reason)
			assert.Equal(t, se, rep.Divergence)
		})
	}
}

func TestStepResultCarriesDigests(t *testing.T) {
	r, err := replayer.New()
	require.NoError(t, err)
	traj := &trajectory.Trajectory{ID: "x", Steps: []trajectory.Step{shell("echo a", nil)}}
	rep, err := r.Replay(context.Background(), newFake(nil), &task.Task{ID: "t"}, traj, 1)
	require.NoError(t, err)
	require.Len(t, rep.Steps, 1)
	require.NotNil(t, rep.Steps[0].Digests)
	assert.Equal(t, replayer.Digest(replayer.CompareExact, "a\n"), rep.Steps[0].Digests.Exact)
	assert.Equal(t, replayer.Digest(replayer.CompareNormalized, "a"), rep.Steps[0].Digests.Of(replayer.CompareNormalized))
	assert.Empty(t, rep.Steps[0].Digests.Of(replayer.CompareIgnore))
}

// cancellingSandbox cancels the replay's context during an exec and answers
// as a sandbox without cancellation support would: a timed-out step.
type cancellingSandbox struct {
	*fakeSandbox
	cancel context.CancelFunc
}

func (c cancellingSandbox) Exec(ctx context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error) {
	if req.Command == "sleep 100" {
		c.cancel()
		return sandbox.ExecResult{TimedOut: true, ExitCode: 124}, nil
	}
	return c.fakeSandbox.Exec(ctx, req)
}

func TestReplayCancelledIsNotADivergence(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var hooked []replayer.StepResult
	r, err := replayer.New(replayer.WithStepHook(func(s replayer.StepResult) { hooked = append(hooked, s) }))
	require.NoError(t, err)
	traj := &trajectory.Trajectory{ID: "x", Steps: []trajectory.Step{shell("echo a", nil), shell("sleep 100", nil), shell("echo b", nil)}}
	rep, err := r.Replay(ctx, cancellingSandbox{newFake(nil), cancel}, &task.Task{ID: "t"}, traj, 3)
	require.ErrorIs(t, err, context.Canceled)
	var se *replayer.StepError
	assert.NotErrorAs(t, err, &se, "a cancelled step is not a step failure")
	assert.Nil(t, rep.Divergence)
	assert.Len(t, rep.Steps, 1, "the interrupted step is not reported as a result")
	assert.Len(t, hooked, 1)
}
