package importer

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/trajectory"
)

func intervenedTrajectory() *trajectory.Trajectory {
	zero := 0
	return &trajectory.Trajectory{ID: "iv", Task: "task.yaml",
		Messages: []json.RawMessage{json.RawMessage(`{"role":"user","content":"go"}`)},
		Steps: []trajectory.Step{
			{Action: trajectory.KindShell, Command: "ls", Tokens: 5, Observation: &trajectory.Observation{ExitCode: &zero}},
			{Action: trajectory.KindShell, Command: "make", Tokens: 7, Intervened: true, Observation: &trajectory.Observation{ExitCode: &zero}},
			{Action: trajectory.KindNoop, Note: "done"},
		}}
}

func TestRoundTripIntervened(t *testing.T) {
	tr := intervenedTrajectory()
	require.NoError(t, tr.Validate())
	assertRoundTrips(t, tr)
}

func TestExportOpenAIFlagsEveryMessage(t *testing.T) {
	tests := []struct {
		name string
		tr   *trajectory.Trajectory
		want []any // the "intervened" member of each message (nil: absent)
	}{
		{"intervened step", intervenedTrajectory(), []any{false, false, false, true, true, false}},
		{"no intervention: plain chat", func() *trajectory.Trajectory {
			tr := intervenedTrajectory()
			tr.Steps[1].Intervened = false
			return tr
		}(), []any{nil, nil, nil, nil, nil, nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ExportOpenAI(tt.tr)
			require.NoError(t, err)
			var got []any
			for _, m := range c.Messages {
				var fields map[string]any
				require.NoError(t, json.Unmarshal(m, &fields))
				got = append(got, fields["intervened"])
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestExportATIFCarriesIntervened(t *testing.T) {
	a, err := ExportATIF(intervenedTrajectory())
	require.NoError(t, err)
	var flags []bool
	for _, st := range a.Steps {
		if st.Source == "agent" {
			flags = append(flags, st.Extra != nil && st.Extra.RBX != nil && st.Extra.RBX.Intervened)
		}
	}
	assert.Equal(t, []bool{false, true, false}, flags)
}
