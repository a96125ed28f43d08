package curriculum

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJoinGroup: members that join a group count as its episodes, as if
// NextGroup had placed them together: Search-Learn's next probe then goes
// to the next anchor, where without the join it would go to the same one.
func TestJoinGroup(t *testing.T) {
	cases := []struct {
		name     string
		join     int
		sameNext bool
	}{
		{"a group of one then one more request", 0, true},
		{"a group of one joined by one", 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEngine(t, TaskInfo{ID: "t", T: 20}, WithStrategy(SearchLearn), WithProbes(2))
			k, p, err := e.NextGroup("t", 1)
			require.NoError(t, err)
			require.Equal(t, PurposeProbe, p)
			if tc.join > 0 {
				require.NoError(t, e.JoinGroup("t", k, tc.join))
			}
			k2, _, err := e.NextGroup("t", 1)
			require.NoError(t, err)
			assert.Equal(t, tc.sameNext, k2 == k, "k %d then %d", k, k2)
		})
	}
	e := newEngine(t, TaskInfo{ID: "t", T: 20}, WithStrategy(Heuristic))
	assert.ErrorIs(t, e.JoinGroup("t", 19, 0), ErrInvalidOption)
	assert.Error(t, e.JoinGroup("unknown", 19, 1))
}
