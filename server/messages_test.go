package server

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// TestPrefixMessagesMemo: a group's members share the memo; each gets the
// messages it would get alone, built once per distinct (step, live
// observation).
func TestPrefixMessagesMemo(t *testing.T) {
	sh := func(cmd string) trajectory.Step { return trajectory.Step{Action: trajectory.KindShell, Command: cmd} }
	ref := &trajectory.Trajectory{ID: "ref", Task: "t", Steps: []trajectory.Step{sh("a"), sh("b"), sh("c")}}
	e := &Entry{Task: &task.Task{ID: "t", Instruction: "do it"}, Ref: ref}
	report := func(outs ...string) *replayer.Report {
		r := &replayer.Report{From: 0, To: len(outs)}
		for i, o := range outs {
			r.Steps = append(r.Steps, replayer.StepResult{Index: i, Action: trajectory.KindShell, Output: o, OutputBytes: int64(len(o))})
		}
		return r
	}
	tests := []struct {
		name      string
		reps      []*replayer.Report
		wantSteps int // distinct entries the memo built
	}{
		{name: "one state for all", reps: []*replayer.Report{report("1", "2", "3"), report("1", "2", "3"), report("1", "2", "3")}, wantSteps: 3},
		{name: "a fresh otp in one", reps: []*replayer.Report{report("1", "2", "3"), report("1", "otp-9", "3")}, wantSteps: 4},
		{name: "k beyond the report", reps: []*replayer.Report{report("1"), report("1")}, wantSteps: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			memo := &messageMemo{}
			got := make([][]json.RawMessage, len(tc.reps))
			var wg sync.WaitGroup
			for i, rep := range tc.reps {
				wg.Go(func() {
					msgs, err := prefixMessages(e, rep, 3, memo)
					assert.NoError(t, err)
					got[i] = msgs
				})
			}
			wg.Wait()
			for i, rep := range tc.reps {
				alone, err := prefixMessages(e, rep, 3, nil)
				require.NoError(t, err)
				assert.Equal(t, alone, got[i], "member %d", i)
			}
			assert.Len(t, memo.steps, tc.wantSteps)
		})
	}
}
