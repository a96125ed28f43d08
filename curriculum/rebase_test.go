package curriculum

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// master serves the engine's own choice and succeeds until the position
// reaches k (or n episodes were played).
func master(t *testing.T, e *Engine, task string, until, n int) {
	t.Helper()
	for range n {
		st, err := e.Status(task)
		require.NoError(t, err)
		if st.K == until && st.Phase != "search" {
			return
		}
		k, _, err := e.Next(task)
		require.NoError(t, err)
		require.NoError(t, e.Observe(task, k, true))
	}
}

func TestRebaseMapsPosition(t *testing.T) {
	w2 := []Option{WithDecision(DecisionWindow), WithWindow(2)} // two successes master a checkpoint
	tests := []struct {
		name     string
		opts     []Option
		T        int
		at       int // master down to this position first (-1: no episode)
		k, newT  int
		wantK    int
		wantSegs []int
		kept     []int // checkpoints whose statistics survive
	}{
		{name: "sequential position after k moves to min(position, T'-1)", opts: w2, T: 6, at: 3, k: 0, newT: 2, wantK: 1, kept: []int{0}},
		{name: "sequential position at or before k is kept", opts: w2, T: 6, at: 2, k: 3, newT: 5, wantK: 2, kept: []int{3}},
		{name: "sequential position after k inside the new reference", opts: w2, T: 8, at: 5, k: 1, newT: 7, wantK: 5, kept: nil},
		{name: "heuristic", opts: append([]Option{WithStrategy(Heuristic), WithDeltaMax(2)}, w2...), T: 9, at: 6, k: 2, newT: 4, wantK: 3, kept: nil},
		{name: "parallel drops the segments after the stretched one", opts: append([]Option{WithStrategy(Parallel)}, w2...), T: 8, at: -1, k: 2, newT: 4, wantK: 1, wantSegs: []int{1, 3}},
		{name: "search-learn restarts SEARCH over the mapped domain", opts: []Option{WithStrategy(SearchLearn), WithAnchors(2)}, T: 8, at: -1, k: 0, newT: 3, wantK: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEngine(t, TaskInfo{ID: "t", T: tc.T}, tc.opts...)
			if tc.at >= 0 {
				master(t, e, "t", tc.at, 200)
			}
			before, err := e.Status("t")
			require.NoError(t, err)
			require.NoError(t, e.Rebase(Rebase{Task: "t", K: tc.k, Version: 2, To: TaskInfo{T: tc.newT}}))
			st, err := e.Status("t")
			require.NoError(t, err)
			assert.Equal(t, 2, st.Version)
			assert.Equal(t, tc.newT, st.T)
			assert.Equal(t, tc.wantK, st.K)
			assert.Equal(t, tc.wantSegs, st.Segments)
			for _, c := range st.Checkpoints {
				assert.LessOrEqual(t, c.K, tc.k, "checkpoint %d after k keeps statistics", c.K)
			}
			for _, c := range before.Checkpoints {
				if c.K <= tc.k {
					assert.Contains(t, st.Checkpoints, c, "checkpoint %d up to k loses statistics", c.K)
				}
			}
			k, _, err := e.Next("t")
			require.NoError(t, err)
			assert.Less(t, k, tc.newT)
			require.NoError(t, e.Observe("t", k, true), "the curriculum continues on the new reference")
		})
	}
}

func TestSearchLearnRebaseKeepsLearnBeforeK(t *testing.T) {
	e := newEngine(t, TaskInfo{ID: "t", T: 8}, WithStrategy(SearchLearn), WithAnchors(4))
	// Probes: anchor 0 fails, anchor 2 succeeds: LEARN at 2.
	for _, ok := range []bool{false, true, true, true} {
		k, _, err := e.Next("t")
		require.NoError(t, err)
		require.NoError(t, e.Observe("t", k, ok))
	}
	st, err := e.Status("t")
	require.NoError(t, err)
	require.Equal(t, "learn", st.Phase)
	require.Equal(t, 2, st.K)
	require.NoError(t, e.Rebase(Rebase{Task: "t", K: 3, Version: 2, To: TaskInfo{T: 5}}))
	st, err = e.Status("t")
	require.NoError(t, err)
	assert.Equal(t, "learn", st.Phase)
	assert.Equal(t, 2, st.K)
	assert.Equal(t, &[2]int{0, 4}, st.Domain)
}

func TestRebaseErrors(t *testing.T) {
	e := newEngine(t, TaskInfo{ID: "t", T: 5, Valid: []bool{true, false, true, true, true}})
	for _, rb := range []Rebase{
		{Task: "t", K: 0, Version: 3, To: TaskInfo{T: 2}},                                   // skips version 2
		{Task: "t", K: 5, Version: 2, To: TaskInfo{T: 7}},                                   // k beyond the old reference
		{Task: "t", K: 3, Version: 2, To: TaskInfo{T: 3}},                                   // k beyond the new one
		{Task: "t", K: 2, Version: 2, To: TaskInfo{T: 3}},                                   // prefix validity changed
		{Task: "t", K: 1, Version: 2, To: TaskInfo{T: 3, Valid: []bool{true, false, true}}}, // k not servable
		{Task: "t", K: 0, Version: 2, To: TaskInfo{ID: "u", T: 2}},                          // another task
		{Task: "t", K: 0, Version: 2, To: TaskInfo{T: 0}},                                   // malformed shape
	} {
		assert.ErrorIs(t, e.Rebase(rb), ErrInvalidRebase, "%+v", rb)
	}
	assert.ErrorIs(t, e.Rebase(Rebase{Task: "nope", Version: 2, To: TaskInfo{T: 1}}), ErrUnknownTask)
	st, err := e.Status("t")
	require.NoError(t, err)
	assert.Equal(t, 1, st.Version, "a refused rebase changes nothing")
	assert.NoError(t, e.Rebase(Rebase{Task: "t", K: 2, Version: 2, To: TaskInfo{T: 3, Valid: []bool{true, false, true}}}))
}

func TestRestoreReproducesRebases(t *testing.T) {
	for _, s := range Strategies {
		t.Run(string(s), func(t *testing.T) {
			rec := &memRecorder{}
			opts := []Option{WithStrategy(s), WithWindow(4), WithMinSuccesses(4), WithAnchors(3)}
			a, err := New(append(opts, WithRecorder(rec))...)
			require.NoError(t, err)
			rng := rand.New(rand.NewPCG(3, 4))
			versions := map[string]int{}
			for i := range 3 {
				id := fmt.Sprint("task", i)
				require.NoError(t, a.Register(TaskInfo{ID: id, T: 10 + i}))
				versions[id] = 1
			}
			for i := range 1500 {
				id := fmt.Sprint("task", rng.IntN(3))
				k, _, err := a.Next(id)
				require.NoError(t, err)
				if i%97 == 0 { // a shorter episode from k was adopted
					st, err := a.Status(id)
					require.NoError(t, err)
					if k < st.T-1 {
						versions[id]++
						require.NoError(t, a.Rebase(Rebase{Task: id, K: k, Version: versions[id], To: TaskInfo{T: k + 1 + rng.IntN(st.T-k-1)}}))
						continue
					}
				}
				require.NoError(t, a.Observe(id, k, rng.Float64() < 0.6))
			}
			require.NotEmpty(t, rec.rebases)
			b, err := New(opts...)
			require.NoError(t, err)
			require.NoError(t, b.Restore(rec.tasks, rec.outcomes, rec.rebases...))
			for _, id := range a.Tasks() {
				want, err := a.Status(id)
				require.NoError(t, err)
				got, err := b.Status(id)
				require.NoError(t, err)
				assert.Equal(t, want, got)
			}
		})
	}
}
