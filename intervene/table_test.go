package intervene_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/intervene"
)

// TestWriteTableEvidenceCost: each rollout's evidence cost is a column
// (scorings × / actions replayed / seconds, "—" without evidence) and the
// summary totals it.
func TestWriteTableEvidenceCost(t *testing.T) {
	tests := []struct {
		name string
		rows []intervene.Rollout
		want []string
	}{
		{"none", []intervene.Rollout{{Index: 0, Outcome: intervene.OutcomeSuccess, ForkT: -1}},
			[]string{"evidence: 0 scratch scoring(s), 0 action(s) replayed, 0.0 s"}},
		{"two rollouts", []intervene.Rollout{
			{Index: 0, Outcome: intervene.OutcomeRescued, ForkT: 5, Cost: intervene.EvidenceCost{Calls: 3, StepsReplayed: 12, MS: 1500}},
			{Index: 1, Outcome: intervene.OutcomeNotRescued, ForkT: 2, Cost: intervene.EvidenceCost{Calls: 2, StepsReplayed: 4, MS: 500}},
		}, []string{"3×/12/1.5s", "2×/4/0.5s", "evidence: 5 scratch scoring(s), 16 action(s) replayed, 2.0 s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, intervene.WriteTable(&b, &intervene.Result{Rows: tt.rows}))
			assert.Contains(t, b.String(), "EVIDENCE COST")
			for _, w := range tt.want {
				assert.Contains(t, b.String(), w)
			}
		})
	}
}
