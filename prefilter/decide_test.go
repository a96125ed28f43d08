package prefilter

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

func TestDecide(t *testing.T) {
	pass := Repeat{Passed: true, Reached: 3, Duration: time.Second}
	fail := func(r reason.Reason, reached int) Repeat {
		return Repeat{Reason: r, Reached: reached, Failure: &Failure{Message: string(r)}, Duration: time.Second}
	}
	tests := []struct {
		name    string
		repeats []Repeat
		status  Status
		why     reason.Reason
		passed  int
		deepest int
	}{
		{"all pass", []Repeat{pass, pass, pass}, StatusKept, "", 3, 3},
		{"all fail alike", []Repeat{fail(reason.ExitCode, 1), fail(reason.ExitCode, 1)}, StatusRejected, reason.ExitCode, 0, 1},
		{"first failure wins", []Repeat{fail(reason.Output, 2), fail(reason.Timeout, 1)}, StatusRejected, reason.Output, 0, 1},
		{"pass and fail is flaky", []Repeat{pass, fail(reason.ExitCode, 0), pass, fail(reason.ExitCode, 0)}, StatusRejected, reason.Flaky, 2, 3},
		{"verify fails sometimes is flaky", []Repeat{fail(reason.VerifyFailed, 3), pass}, StatusRejected, reason.Flaky, 1, 3},
		{"infra decides nothing", []Repeat{pass, fail(reason.Infra, 0)}, StatusRejected, reason.Infra, 1, 3},
		{"own failure beats infra", []Repeat{fail(reason.Infra, 0), fail(reason.VerifyFailed, 3)}, StatusRejected, reason.VerifyFailed, 0, 3},
		{"deepest is a checkpoint", []Repeat{fail(reason.ExitCode, 2)}, StatusRejected, reason.ExitCode, 0, 1},
	}
	no := false
	traj := &trajectory.Trajectory{ID: "t", Steps: []trajectory.Step{{Action: "noop"}, {Action: "noop", Checkpoint: &no}, {Action: "noop"}}}
	it := &Item{Key: Key{File: "t.json", ID: "t"}, Traj: traj, Task: &task.Task{ID: "x", Path: "task.yaml"}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := decide(it, tc.repeats)
			assert.Equal(t, tc.status, res.Status)
			assert.Equal(t, tc.why, res.Reason)
			assert.Equal(t, tc.passed, res.Passed)
			assert.Equal(t, tc.deepest, res.Deepest)
			assert.Equal(t, time.Second, res.Duration)
			assert.Equal(t, res.Status != StatusKept, res.Failure != nil, "a rejection carries its failure")
		})
	}
}

func TestStepStats(t *testing.T) {
	traj := &trajectory.Trajectory{ID: "t", Steps: []trajectory.Step{{Action: "shell"}, {Action: "shell", Volatile: true}, {Action: "shell"}}}
	it := &Item{Traj: traj}
	runs := []Repeat{
		{steps: []stepRun{{dur: time.Millisecond, output: "a\n"}, {dur: 3 * time.Millisecond, output: "x"}, {dur: time.Millisecond, output: "took 0.5s"}}},
		{steps: []stepRun{{dur: 3 * time.Millisecond, output: "a"}, {dur: time.Millisecond, output: "y"}, {dur: time.Millisecond, output: "took 0.7s"}}},
		{steps: []stepRun{{dur: 2 * time.Millisecond, output: "a"}, {dur: 2 * time.Millisecond, output: "x"}}},
	}
	stats, nondet := stepStats(it, runs)
	assert.Equal(t, []StepStat{
		{Index: 0, Action: "shell", Median: 2 * time.Millisecond, Runs: 3},
		{Index: 1, Action: "shell", Median: 2 * time.Millisecond, Runs: 3},
		{Index: 2, Action: "shell", Median: time.Millisecond, Runs: 2},
	}, stats)
	assert.Equal(t, []int{1}, nondet, "only step 1's output differs once normalised (trailing newline, durations)")
	assert.Equal(t, []int{1}, base(&Item{Traj: traj}).Volatile)
}

func TestWhole(t *testing.T) {
	no := false
	traj := &trajectory.Trajectory{Steps: []trajectory.Step{{Action: "noop"}, {Action: "noop", Checkpoint: &no}}}
	w := whole(traj)
	assert.True(t, w.ValidCheckpoint(2), "the full length can be replayed")
	assert.False(t, traj.ValidCheckpoint(2), "the original is untouched")
}
