package replayer_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// TestDoCapsTimeout: an agent's own timeout never exceeds the task's step
// limit (the sandbox default when the task sets none), and the observation
// says when it was cut; recorded reference steps keep theirs.
func TestDoCapsTimeout(t *testing.T) {
	tests := []struct {
		name   string
		limit  time.Duration
		asked  time.Duration
		want   time.Duration
		capped bool
		replay bool // a recorded reference step, not an agent's
	}{
		{name: "above the limit", limit: 2 * time.Second, asked: 600 * time.Second, want: 2 * time.Second, capped: true},
		{name: "below the limit", limit: 2 * time.Second, asked: time.Second, want: time.Second},
		{name: "none asked: the limit", limit: 2 * time.Second, want: 2 * time.Second},
		{name: "no task limit: the sandbox default", asked: time.Hour, want: sandbox.DefaultStepTimeout, capped: true},
		{name: "a reference step keeps its own", limit: 2 * time.Second, asked: 600 * time.Second, want: 600 * time.Second, replay: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := replayer.New()
			require.NoError(t, err)
			sb := newFake(nil)
			st := shell("echo hi", nil)
			st.Timeout = task.Duration(tc.asked)
			traj := &trajectory.Trajectory{ID: "x", Steps: []trajectory.Step{st}}
			run := r.Start(sb, &task.Task{ID: "t", Limits: task.Limits{StepTimeout: task.Duration(tc.limit)}}, traj)
			if tc.replay {
				_, err := run.To(context.Background(), 1)
				require.NoError(t, err)
				require.Len(t, sb.timeout, 1)
				assert.Equal(t, tc.want, sb.timeout[0])
				return
			}
			res, err := run.Do(context.Background(), st)
			require.NoError(t, err)
			require.Len(t, sb.timeout, 1)
			assert.Equal(t, tc.want, sb.timeout[0])
			assert.Equal(t, tc.capped, res.TimeoutCapped)
			assert.Equal(t, tc.capped, res.Observation().TimeoutCapped)
		})
	}
}
