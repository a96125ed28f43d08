package curriculum

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A probe whose episode closes without an outcome is lost. The next probe
// goes to an anchor still waiting for its outcome, never to one that has
// answered (issue 16: the old code re-probed the least *issued* anchor,
// which is anchor 0 once every anchor had one episode).
func TestSearchLearnReissuesLostProbes(t *testing.T) {
	tests := []struct {
		name string
		lost []int // anchors whose probe never reports
		want []int // the probes served next, in order
	}{
		{"one lost", []int{7}, []int{7, 7}},
		{"two lost: fewest outstanding first", []int{3, 6}, []int{3, 6, 3, 6}},
		{"first anchor lost", []int{0}, []int{0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEngine(t, TaskInfo{ID: "t", T: 8}, WithStrategy(SearchLearn)) // anchors 0..7
			for want := range 8 {
				k, p, err := e.Next("t")
				require.NoError(t, err)
				require.Equal(t, want, k)
				require.Equal(t, PurposeProbe, p)
			}
			for k := range 8 {
				if !slices.Contains(tc.lost, k) {
					require.NoError(t, e.Observe("t", k, false))
				}
			}
			for i, want := range tc.want {
				k, p, err := e.Next("t")
				require.NoError(t, err)
				assert.Equalf(t, want, k, "re-issued probe %d", i)
				assert.Equal(t, PurposeProbe, p)
			}
			// The re-issued probes answer: SELECT runs (no success: the end).
			for _, k := range tc.lost {
				require.NoError(t, e.Observe("t", k, false))
			}
			k, p, err := e.Next("t")
			require.NoError(t, err)
			assert.Equal(t, 7, k)
			assert.Equal(t, PurposeLearn, p)
		})
	}
}

// Parallel is finished when k = 0 is mastered, even though a later
// segment has not mastered its checkpoints (issue 16: the old code kept
// serving the later segment).
func TestParallelSolvedWhenKZeroMastered(t *testing.T) {
	e := newEngine(t, TaskInfo{ID: "t", T: 8},
		WithDecision(DecisionWindow), WithWindow(4), WithStrategy(Parallel), WithSegments(2))
	// Segments [0,3] from 3 and [4,7] from 7, alternating: the first
	// masters 3, 2, 1, 0 (three straight successes each, W = 4) while 7
	// never succeeds (a bottleneck after three failures).
	drive(t, e, "t", []step{
		S(3, rb), F(7, rb), S(3, rb), F(7, rb), S(3, rb), F(7, rb),
		S(2, rb), F(7, bn), S(2, rb), F(7, bn), S(2, rb), F(7, bn),
		S(1, rb), F(7, bn), S(1, rb), F(7, bn), S(1, rb), F(7, bn),
		S(0, rb), F(7, bn), S(0, rb), F(7, bn), S(0, rb),
		F(0, sv), S(0, sv),
	})
	st, err := e.Status("t")
	require.NoError(t, err)
	assert.True(t, st.Solved)
	assert.Equal(t, "solved", st.Phase)
}
