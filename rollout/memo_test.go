package rollout

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/evidence"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

func TestMemoKey(t *testing.T) {
	tk, ref := &task.Task{ID: "t"}, &trajectory.Trajectory{ID: "r"}
	ls := trajectory.Step{Action: trajectory.KindShell, Command: "ls"}
	observed := ls
	observed.Observation, observed.Tokens = &trajectory.Observation{Output: "a"}, 9
	state := func(k int, acts ...trajectory.Step) evidence.State {
		return evidence.State{Task: tk, Ref: ref, K: k, Actions: acts}
	}
	tests := []struct {
		name      string
		a, b      evidence.State
		same      bool
		repeatsOK bool
	}{
		{"observations and tokens do not count", state(1, ls), state(1, observed), true, true},
		{"the checkpoint counts", state(1, ls), state(2, ls), false, true},
		{"the actions count", state(1, ls), state(1, ls, ls), false, true},
		{"an http action is never repeated", state(1, trajectory.Step{Action: trajectory.KindHTTP}), state(1), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ka, ok := memoKey(tt.a)
			assert.Equal(t, tt.repeatsOK, ok)
			kb, _ := memoKey(tt.b)
			assert.Equal(t, tt.same, ka == kb)
		})
	}
}

func TestMemoScore(t *testing.T) {
	st := evidence.State{Task: &task.Task{ID: "t"}, Ref: &trajectory.Trajectory{ID: "r"}}
	var m memo
	calls := 0
	fail := func() (*evidence.Result, error) { calls++; return nil, errors.New("sandbox gone") }
	ok := func() (*evidence.Result, error) { calls++; return &evidence.Result{Score: 1}, nil }
	tests := []struct {
		name     string
		score    func() (*evidence.Result, error)
		calls    int
		memoised bool
		wantErr  bool
	}{
		{"a failure", fail, 1, false, true},
		{"is not remembered", ok, 2, false, false},
		{"a success is", fail, 2, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, memoised, err := m.score(st, tt.score)
			assert.Equal(t, tt.calls, calls)
			assert.Equal(t, tt.memoised, memoised)
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, 1.0, res.Score)
		})
	}
}
