package curriculum

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPhaseIsStatusPhase: Phase answers Status.Phase under every
// strategy, at every stage of a run, and only values of Phases.
func TestPhaseIsStatusPhase(t *testing.T) {
	for _, st := range Strategies {
		t.Run(string(st), func(t *testing.T) {
			e, err := New(WithStrategy(st))
			require.NoError(t, err)
			require.NoError(t, e.Register(TaskInfo{ID: "a", T: 6}))
			seen := map[string]bool{}
			for i := range 400 {
				k, _, err := e.Next("a")
				require.NoError(t, err)
				require.NoError(t, e.Observe("a", k, i%5 != 0))
				ph, err := e.Phase("a")
				require.NoError(t, err)
				status, err := e.Status("a")
				require.NoError(t, err)
				require.Equal(t, status.Phase, ph, "episode %d", i)
				require.True(t, slices.Contains(Phases, ph), ph)
				seen[ph] = true
			}
			assert.True(t, seen["solved"], "the run ends solved: %v", seen)
			_, err = e.Phase("b")
			assert.ErrorIs(t, err, ErrUnknownTask)
		})
	}
}
