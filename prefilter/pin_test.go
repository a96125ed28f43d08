package prefilter

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// ran is one repeat's observation of a step.
func ran(code int, out string) stepRun {
	d := &replayer.Digests{Exact: replayer.Digest(replayer.CompareExact, out),
		Normalized: replayer.Digest(replayer.CompareNormalized, out), NormalizedHex: replayer.Digest(replayer.CompareNormalizedHex, out)}
	return stepRun{exitCode: code, output: out, digests: d}
}

func normalizedByDefault(s trajectory.Step) replayer.Comparison {
	rp, _ := replayer.New()
	return rp.ComparisonFor(s)
}

func TestPinSteps(t *testing.T) {
	sh := trajectory.Step{Action: trajectory.KindShell, Command: "x"}
	tests := []struct {
		name    string
		step    trajectory.Step
		runs    []stepRun // one per repeat
		compare replayer.Comparison
		digest  string // of this output under compare; "" when not compared
		note    bool
		code    *int
		flaky   bool
	}{
		{name: "stable output", step: sh, runs: []stepRun{ran(0, "ok\n"), ran(0, "ok\n")},
			compare: replayer.CompareNormalized, digest: "ok"},
		{name: "timings differ: still normalized", step: sh, runs: []stepRun{ran(0, "took 1ms"), ran(0, "took 2ms")},
			compare: replayer.CompareNormalized, digest: "took 1ms"},
		{name: "hex varied: masked for this step", step: sh, runs: []stepRun{ran(0, "id 0123456789abcdef0123"), ran(0, "id fedcba9876543210fedc")},
			compare: replayer.CompareNormalizedHex, digest: "id 0123456789abcdef0123", note: true},
		{name: "output varied: not compared, exit code kept", step: sh, runs: []stepRun{ran(1, "pid 17"), ran(1, "pid 18")},
			compare: replayer.CompareIgnore, note: true, code: ptr(1)},
		{name: "exit code varied: flaky", step: sh, runs: []stepRun{ran(0, ""), ran(1, "")}, flaky: true},
		{name: "volatile: exit code only", step: trajectory.Step{Action: trajectory.KindShell, Command: "date", Volatile: true},
			runs: []stepRun{ran(0, "mon"), ran(0, "tue")}, compare: replayer.CompareIgnore},
		{name: "exact asked and stable", step: trajectory.Step{Action: trajectory.KindShell, Command: "x", Compare: "exact"},
			runs: []stepRun{ran(0, "a  \n"), ran(0, "a  \n")}, compare: replayer.CompareExact, digest: "a  \n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			traj := &trajectory.Trajectory{ID: "t", Steps: []trajectory.Step{{Action: trajectory.KindWriteFile, Path: "f"}, tc.step}}
			var outcomes []Repeat
			for _, r := range tc.runs {
				outcomes = append(outcomes, Repeat{Passed: true, steps: []stepRun{{}, r}})
			}
			pins, err := pinSteps(traj, outcomes, normalizedByDefault)
			if tc.flaky {
				var ne *NondeterministicExitError
				require.ErrorAs(t, err, &ne)
				assert.Equal(t, 1, ne.Step)
				return
			}
			require.NoError(t, err)
			require.Len(t, pins, 1, "write_file has nothing to pin")
			p := pins[0]
			assert.Equal(t, 1, p.Step)
			assert.Equal(t, tc.compare, p.Compare)
			want := ""
			if tc.compare != replayer.CompareIgnore {
				want = replayer.Digest(tc.compare, tc.digest)
			}
			assert.Equal(t, want, p.OutputSHA256)
			assert.Equal(t, tc.note, p.Note != "", "note %q", p.Note)
			code := tc.code
			if code == nil {
				code = ptr(tc.runs[0].exitCode)
			}
			assert.Equal(t, code, p.ExitCode)
		})
	}
}

func TestPinnedVerdictAndApply(t *testing.T) {
	recorded := "what the agent saw"
	traj := &trajectory.Trajectory{ID: "t", Task: "task.yaml", Steps: []trajectory.Step{
		{Action: trajectory.KindShell, Command: "grep -q x f", Observation: &trajectory.Observation{Output: recorded}},
		{Action: trajectory.KindShell, Command: "ls"}}}
	it := &Item{Traj: traj}
	ok := []Repeat{{Passed: true, steps: []stepRun{ran(0, ""), ran(0, "f\n")}}, {Passed: true, steps: []stepRun{ran(0, ""), ran(0, "f\n")}}}
	res := pinned(decide(it, ok), it, ok, normalizedByDefault)
	require.Equal(t, StatusKept, res.Status)
	require.Len(t, res.Pins, 2)
	assert.Contains(t, res.Detail, "pinned 2 steps")

	out := applyPins(traj, res.Pins)
	o := out.Steps[0].Observation
	require.NotNil(t, o)
	assert.True(t, o.Pinned)
	assert.Equal(t, ptr(0), o.ExitCode)
	assert.Equal(t, recorded, o.Output, "the recorded text stays for prompts")
	assert.Equal(t, replayer.Digest(replayer.CompareNormalized, ""), o.OutputSHA256)
	assert.Equal(t, "normalized", out.Steps[1].Compare)
	assert.Nil(t, traj.Steps[1].Observation, "the input trajectory is untouched")
	require.NoError(t, out.Validate())

	bad := []Repeat{{Passed: true, steps: []stepRun{ran(0, ""), ran(0, "f\n")}}, {Passed: true, steps: []stepRun{ran(1, ""), ran(0, "f\n")}}}
	res = pinned(decide(it, bad), it, bad, normalizedByDefault)
	assert.Equal(t, StatusRejected, res.Status)
	assert.Equal(t, reason.Flaky, res.Reason)
	require.NotNil(t, res.Failure.Step)
	assert.Equal(t, 0, *res.Failure.Step)
}

func ptr[T any](v T) *T { return &v }
