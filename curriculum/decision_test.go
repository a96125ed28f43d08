package curriculum

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With the SPRT's defaults (θ = 0.5, δ = 0.25, α = 0.05) a success adds log 3 to
// the log-likelihood ratio and a failure subtracts it; the bounds are
// ±log 19, so a test ends when successes and failures since it began
// differ by three.
func TestSPRTScriptedDecisions(t *testing.T) {
	tests := []struct {
		name   string
		T      int
		opts   []Option
		script []step
	}{{
		name: "sequential: three more successes than failures move on",
		T:    4,
		opts: []Option{WithDecision(DecisionSPRT), WithStrategy(Sequential)},
		script: []step{
			S(3, rb), S(3, rb), S(3, rb), // +3 → 2
			S(2, rb), F(2, rb), S(2, rb), F(2, rb), S(2, rb), S(2, rb), // +2 after six: not yet
			S(2, rb),                     // +3 → 1
			F(1, rb), F(1, rb), F(1, rb), // −3: a bottleneck; a new test starts
			S(1, bn), S(1, bn), S(1, bn), // the failures are not carried over: +3 → 0
			S(0, rb), S(0, rb), S(0, rb),
			S(0, sv),
		},
	}, {
		name: "α = 0.1: the bound log 9 is exactly two steps of log 3",
		T:    3,
		opts: []Option{WithDecision(DecisionSPRT), WithStrategy(Sequential), WithSPRTAlpha(0.1)},
		script: []step{
			S(2, rb), S(2, rb),
			F(1, rb), F(1, rb), S(1, bn), S(1, bn),
			S(0, rb), S(0, rb),
			S(0, sv),
		},
	}, {
		name: "heuristic: δ_max after a test without a failure, one step otherwise",
		T:    8,
		opts: []Option{WithDecision(DecisionSPRT), WithStrategy(Heuristic), WithDeltaMax(3)},
		script: []step{
			S(7, rb), S(7, rb), S(7, rb), // no failure at 7: → 4
			S(4, rb), F(4, rb), S(4, rb), S(4, rb), S(4, rb), // → 3
			S(3, rb), S(3, rb), S(3, rb), // → 0
			S(0, rb), S(0, rb), S(0, rb),
			S(0, sv),
		},
	}, {
		name: "search-learn: LEARN ends on the outcome that completes the test",
		T:    4,
		opts: []Option{WithDecision(DecisionSPRT), WithStrategy(SearchLearn), WithAnchors(2)},
		script: []step{
			F(0, pr), S(3, pr), // SELECT 3, whose probe counts: +1
			S(3, ln), S(3, ln), // +3 → RESTRICT [0,2]
			F(0, pr), F(2, pr), // no success: the end, 2
			S(2, ln), S(2, ln), S(2, ln), S(2, ln), // −1 → +3 → [0,1]
			S(0, pr), S(1, pr), // SELECT 0 (two failures, one success there: −1)
			S(0, ln), S(0, ln), S(0, ln), S(0, ln), // → +3: solved
			S(0, sv),
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEngine(t, TaskInfo{ID: "t", T: tc.T}, tc.opts...)
			drive(t, e, "t", tc.script)
			st, err := e.Status("t")
			require.NoError(t, err)
			assert.True(t, st.Solved)
		})
	}
}

// The posterior rule with its defaults (θ = 0.5, α = 1/8, s_min = 4,
// W = 8): it moves on when some run of recent outcomes with at least four
// successes has P(p > 0.5) ≥ 7/8 — four of four (0.97), four of five
// (57/64 = 0.89), five of six, six of seven or eight — and calls a
// bottleneck when the window has P(p < 0.5) ≥ 7/8 (two failures of two).
func TestPosteriorScriptedDecisions(t *testing.T) {
	tests := []struct {
		name   string
		T      int
		opts   []Option
		script []step
	}{{
		name: "sequential",
		T:    5,
		opts: []Option{WithStrategy(Sequential)},
		script: []step{
			S(4, rb), S(4, rb), S(4, rb), S(4, rb), // 4 of 4 → 3
			S(3, rb), F(3, rb), S(3, rb), S(3, rb), S(3, rb), // 4 of 5 → 2
			S(2, rb), S(2, rb), F(2, rb), S(2, rb), F(2, rb), S(2, rb), // 3 of 4 at best: not yet
			S(2, rb), S(2, rb), // S S F S F S S S: the last five hold four → 1
			F(1, rb), F(1, rb), // 0 of 2: P(p < θ) = 7/8, a bottleneck
			S(1, bn), S(1, bn), S(1, bn), // three straight successes are not s_min
			S(1, bn), // four → 0
			S(0, rb), S(0, rb), S(0, rb), S(0, rb),
			S(0, sv),
		},
	}, {
		name: "heuristic: δ_max when the window holds no failure",
		T:    8,
		opts: []Option{WithStrategy(Heuristic), WithDeltaMax(3)},
		script: []step{
			S(7, rb), S(7, rb), S(7, rb), S(7, rb), // → 4
			S(4, rb), F(4, rb), S(4, rb), S(4, rb), S(4, rb), // a failure: → 3
			S(3, rb), S(3, rb), S(3, rb), S(3, rb), // → 0
			S(0, rb), S(0, rb), S(0, rb), S(0, rb),
			S(0, sv),
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEngine(t, TaskInfo{ID: "t", T: tc.T}, append(tc.opts, WithMinSuccesses(4), withFixedSMin())...) // the scripts count the first checkpoint's s_min of 4
			drive(t, e, "t", tc.script)
			st, err := e.Status("t")
			require.NoError(t, err)
			assert.True(t, st.Solved)
		})
	}
}

func TestBetaAbove(t *testing.T) {
	for _, tc := range []struct {
		s, f int
		x    float64
		want float64
	}{
		{0, 0, 0.5, 0.5},
		{3, 0, 0.5, 15.0 / 16},
		{4, 1, 0.5, 57.0 / 64},
		{3, 1, 0.5, 13.0 / 16},
		{2, 0, 0.3, 1 - 0.3*0.3*0.3},
		{5, 5, 0, 1},
		{5, 5, 1, 0},
	} {
		assert.InDeltaf(t, tc.want, betaAbove(tc.s, tc.f, tc.x), 1e-12, "s=%d f=%d x=%v", tc.s, tc.f, tc.x)
	}
}

func TestDecisionOptions(t *testing.T) {
	sprt := WithDecision(DecisionSPRT)
	for _, o := range [][]Option{
		{WithDecision("vote")},
		{WithAlpha(0)}, {WithAlpha(0.5)}, {WithSPRTAlpha(0)}, {WithSPRTAlpha(0.5)},
		{WithMinSuccesses(0)}, {WithMinSuccesses(9)}, // above W = 8
		{WithLearnAlpha(-0.01)}, {WithLearnAlpha(0.5)}, {WithMinSuccessesFloor(0)}, {WithMinSuccessesFloor(65)},
		{WithDelta(0)}, {WithDelta(0.5)},
		{sprt, WithTheta(0.8), WithThetaHigh(0.9)}, // 0.8 + 0.25 ≥ 1
		{sprt, WithTheta(0.2), WithDelta(0.2)},     // 0.2 − 0.2 ≤ 0
	} {
		_, err := New(o...)
		require.ErrorIs(t, err, ErrInvalidOption)
	}
	e, err := New(WithTheta(0.8), WithThetaHigh(0.9), WithMinSuccesses(9), WithWindow(9))
	require.NoError(t, err, "θ ± δ only binds the SPRT")
	assert.Equal(t, DecisionPosterior, e.Decision())
	_, err = New(WithLearnAlpha(0), WithMinSuccessesFloor(2))
	require.NoError(t, err, "--learn-alpha 0 turns learning off")
	e, err = New(WithDecision(DecisionWindow), WithMinSuccesses(9))
	require.NoError(t, err, "s_min only binds the posterior rule")
	assert.Equal(t, DecisionWindow, e.Decision())
	e, err = New()
	require.NoError(t, err)
	assert.Equal(t, DecisionPosterior, e.Decision())
	assert.InDelta(t, 0.5, e.Theta(), 1e-12)
}

// The SPRT's error rate at p0 is the gambler's-ruin probability of
// climbing three steps before falling three: (r³ − 1)/(r⁶ − 1) with
// r = (1−p)/p, 26/728 ≈ 0.036 ≤ α at p0 = 0.25. The engine's tests agree.
func TestSPRTErrorRate(t *testing.T) {
	cfg := defaults()
	cfg.decision = DecisionSPRT
	tr := newTrack(&cfg, TaskInfo{ID: "t", T: 1})
	const n = 200_000
	moved, rng := 0, uint64(1)
	for range n {
		tr.stats[0] = kstats{}
		for tr.stats[0].test == testNone {
			rng = rng*6364136223846793005 + 1442695040888963407
			tr.record(0, float64(rng>>11)/(1<<53) < 0.25)
		}
		if tr.stats[0].test == testMastered {
			moved++
		}
	}
	want := (math.Pow(3, 3) - 1) / (math.Pow(3, 6) - 1)
	assert.InDelta(t, want, float64(moved)/n, 0.002)
	assert.Less(t, want, cfg.sprtAlpha)
}

// WithOnMastered hears each checkpoint left as mastered, once, and not
// the decisions Restore replays.
func TestOnMasteredHook(t *testing.T) {
	var heard []Mastered
	rec := &memRecorder{}
	e := newEngine(t, TaskInfo{ID: "t", T: 3}, WithRecorder(rec), WithMinSuccesses(4), withFixedSMin(), WithOnMastered(func(m Mastered) { heard = append(heard, m) }))
	drive(t, e, "t", []step{S(2, rb), S(2, rb), S(2, rb), S(2, rb), S(1, rb), S(1, rb), S(1, rb), S(1, rb), S(0, rb), S(0, rb), S(0, rb), S(0, rb), S(0, sv)})
	assert.Equal(t, []Mastered{{"t", 2}, {"t", 1}, {"t", 0}}, heard)

	heard = nil
	r, err := New(WithMinSuccesses(4), withFixedSMin(), WithOnMastered(func(m Mastered) { heard = append(heard, m) }))
	require.NoError(t, err)
	require.NoError(t, r.Restore(rec.tasks, rec.outcomes))
	assert.Empty(t, heard)
	st, err := r.Status("t")
	require.NoError(t, err)
	assert.True(t, st.Solved)
}
