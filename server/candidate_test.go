package server

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

func TestNewCandidate(t *testing.T) {
	sh := func(cmd string) trajectory.Step { return trajectory.Step{Action: trajectory.KindShell, Command: cmd} }
	ref := &trajectory.Trajectory{ID: "ref", Task: "t", Steps: []trajectory.Step{sh("a"), sh("b"), sh("c"), sh("d")}}
	e := &Entry{Task: &task.Task{ID: "t"}, Ref: ref, version: 3}
	act := func(cmd string) Action {
		a := Action{Step: sh(cmd), Tokens: 7}
		a.Observation.Output = cmd + "\n"
		return a
	}
	tests := []struct {
		name    string
		rec     record
		wantErr string
		want    []string // the candidate's commands
	}{
		{name: "shorter from k = 1", rec: record{ID: "ep", Task: "t", K: 1, Actions: []Action{act("x"), act("y")}}, want: []string{"a", "x", "y"}},
		{name: "from k = 0", rec: record{ID: "ep", Task: "t", Actions: []Action{act("x")}}, want: []string{"x"}},
		{name: "as long as the suffix", rec: record{ID: "ep", Task: "t", K: 2, Actions: []Action{act("x"), act("y")}}, wantErr: "took 2 actions, the reference 2"},
		{name: "no action", rec: record{ID: "ep", Task: "t", K: 3}, wantErr: "took no action"},
		{name: "fork", rec: record{ID: "ep", Task: "t", Parent: "ep_p", Actions: []Action{act("x")}}, wantErr: "off-policy"},
		{name: "intervened", rec: record{ID: "ep", Task: "t", Actions: []Action{{Step: sh("x"), Intervened: true}}}, wantErr: "off-policy"},
		{name: "inherited", rec: record{ID: "ep", Task: "t", Actions: []Action{{Step: sh("x"), Inherited: true}}}, wantErr: "off-policy"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := newCandidate(e, tc.rec)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			var got []string
			for _, st := range c.traj.Steps {
				got = append(got, st.Command)
			}
			assert.Equal(t, tc.want, got)
			assert.Equal(t, "t.v4", c.traj.ID)
			assert.Equal(t, 3, c.parent)
			assert.Equal(t, tc.rec.K, c.k)
			last := c.traj.Steps[len(c.traj.Steps)-1]
			require.NotNil(t, last.Observation, "the live observation is recorded")
			assert.Equal(t, last.Command+"\n", last.Observation.Output)
			assert.Equal(t, 7, last.Tokens)
		})
	}
}
