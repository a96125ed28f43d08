package curriculum

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// step is one scripted episode: the checkpoint and purpose the engine must
// serve, and the outcome to report.
type step struct {
	k  int
	p  Purpose
	ok bool
}

// S and F script a success or a failure expected at k with purpose p.
func S(k int, p Purpose) step { return step{k, p, true} }
func F(k int, p Purpose) step { return step{k, p, false} }

const (
	rb = PurposeRollback
	bn = PurposeBottleneck
	pr = PurposeProbe
	ln = PurposeLearn
	sv = PurposeSolved
)

func drive(t *testing.T, e *Engine, task string, script []step) {
	t.Helper()
	for i, s := range script {
		k, p, err := e.Next(task)
		require.NoError(t, err)
		require.Equalf(t, s.k, k, "episode %d: checkpoint", i)
		require.Equalf(t, s.p, p, "episode %d: purpose", i)
		require.NoError(t, e.Observe(task, k, s.ok))
	}
}

func newEngine(t *testing.T, ti TaskInfo, opts ...Option) *Engine {
	t.Helper()
	e, err := New(opts...)
	require.NoError(t, err)
	require.NoError(t, e.Register(ti))
	return e
}

func TestStrategiesServeScriptedCheckpoints(t *testing.T) {
	// The window rule, W = 4, θ = 0.5, θ_high = 0.625: mastered at 3
	// successes in the window (3 ≥ 2.5), low when even all free slots could
	// not reach 2 successes.
	w4 := []Option{WithDecision(DecisionWindow), WithWindow(4)}
	tests := []struct {
		name   string
		info   TaskInfo
		opts   []Option
		script []step
	}{{
		name: "sequential: start at T-1, step back one, bottleneck until recovered",
		info: TaskInfo{ID: "t", T: 4},
		opts: append(w4, WithStrategy(Sequential)),
		script: []step{
			S(3, rb), S(3, rb), S(3, rb), // 3/3 ≥ θ_high → 2
			F(2, rb), F(2, rb), F(2, rb), // 0/3: p̂ < θ whatever comes
			S(2, bn), S(2, bn), S(2, bn), // window F S S S = 3/4 → 1
			S(1, rb), F(1, rb), S(1, rb), F(1, rb), S(1, rb), // S F S F S: last 4 = F S F S... then S
			S(1, rb),
			S(0, rb), S(0, rb), S(0, rb), // k = 0 mastered
			S(0, sv),
		},
	}, {
		name: "heuristic: δ_max when p̂ = 1, one step when p̂ ≈ θ",
		info: TaskInfo{ID: "t", T: 10},
		opts: append(w4, WithStrategy(Heuristic), WithDeltaMax(4)),
		script: []step{
			S(9, rb), S(9, rb), S(9, rb), // p̂ = 1 → 9-4 = 5
			S(5, rb), F(5, rb), S(5, rb), S(5, rb), // 3/4 → 4
			S(4, rb), S(4, rb), S(4, rb), // → 0
			F(0, rb), S(0, rb), S(0, rb), S(0, rb),
			F(0, sv),
		},
	}, {
		name: "sequential skips checkpoint:false",
		info: TaskInfo{ID: "t", T: 6, Valid: []bool{true, true, true, false, true, false}},
		opts: append(w4, WithStrategy(Sequential)),
		script: []step{
			S(4, rb), S(4, rb), S(4, rb), // 5 invalid: start at 4; 3 invalid: → 2
			S(2, rb), S(2, rb), S(2, rb),
			S(1, rb), S(1, rb), S(1, rb),
			S(0, rb), S(0, rb), S(0, rb),
			S(0, sv),
		},
	}, {
		name: "heuristic counts only valid checkpoints",
		info: TaskInfo{ID: "t", T: 8, Valid: []bool{true, true, false, true, false, true, true, true}},
		opts: append(w4, WithStrategy(Heuristic), WithDeltaMax(3)),
		script: []step{
			S(7, rb), S(7, rb), S(7, rb), // three valid back from 7: 6, 5, 3
			S(3, rb), S(3, rb), S(3, rb), // 1, 0
			S(0, rb), S(0, rb), S(0, rb),
			S(0, sv),
		},
	}, {
		name: "parallel: M segments, round-robin budget, finished segments drop out",
		info: TaskInfo{ID: "t", T: 8},
		opts: append(w4, WithStrategy(Parallel), WithSegments(2)),
		script: []step{
			// segments [0,3] (starts at 3) and [4,7] (starts at 7)
			S(3, rb), S(7, rb), S(3, rb), S(7, rb), S(3, rb), S(7, rb), // both mastered → 2 and 6
			F(2, rb), S(6, rb), F(2, rb), S(6, rb), F(2, rb), S(6, rb), // 2 is a bottleneck; 6 → 5
			S(2, bn), S(5, rb), S(2, bn), S(5, rb), S(2, bn), S(5, rb), // 2 → 1, 5 → 4
			S(1, rb), S(4, rb), S(1, rb), S(4, rb), S(1, rb), S(4, rb), // 1 → 0, segment 2 done
			S(0, rb), S(0, rb), S(0, rb),
			S(0, sv),
		},
	}, {
		name: "search-learn: SELECT first anchor with p̂ > 0, else the end; RESTRICT",
		info: TaskInfo{ID: "t", T: 8},
		opts: append(w4, WithStrategy(SearchLearn), WithAnchors(4)),
		script: []step{
			// SEARCH [0,7]: anchors 0, 2, 5, 7; first success from the start is 5
			F(0, pr), F(2, pr), S(5, pr), S(7, pr),
			S(5, ln), S(5, ln), // window S S S: mastered on this outcome → RESTRICT [0,4]
			// SEARCH [0,4]: anchors 0, 1, 3, 4; no success → the end, 4
			F(0, pr), F(1, pr), F(3, pr), F(4, pr),
			F(4, ln), F(4, ln), F(4, ln), // low
			S(4, ln), S(4, ln), S(4, ln), // window F S S S → [0,3]
			// SEARCH [0,3]: all four; 1 succeeds first
			F(0, pr), S(1, pr), S(2, pr), S(3, pr),
			S(1, ln), S(1, ln), // window F S S S (F from the last SEARCH) → [0,0]
			S(0, pr),
			S(0, ln), S(0, ln), // window F S S S: domain empty, solved
			S(0, sv),
		},
	}, {
		name: "search-learn skips checkpoint:false anchors",
		info: TaskInfo{ID: "t", T: 5, Valid: []bool{true, false, true, false, true}},
		opts: append(w4, WithStrategy(SearchLearn)),
		script: []step{
			F(0, pr), S(2, pr), S(4, pr),
			S(2, ln), S(2, ln),
			F(0, pr),
			S(0, ln), S(0, ln), S(0, ln),
			S(0, sv),
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEngine(t, tc.info, tc.opts...)
			drive(t, e, "t", tc.script)
			st, err := e.Status("t")
			require.NoError(t, err)
			assert.True(t, st.Solved)
		})
	}
}
