package sim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/curriculum"
)

// Issue 16's yardstick: Sequential/baseline within 25 % of n·pⁿ⁻¹ at
// these points (the five, then more), with no more premature
// moves than the window rule.
func TestSequentialMatchesClosedFormRatio(t *testing.T) {
	window := []curriculum.Option{curriculum.WithDecision(curriculum.DecisionWindow)}
	for _, p := range []Params{
		{N: 8, P: 0.5, M: 4}, // n·pⁿ⁻¹ = 1/16
		{N: 6, P: 0.5, M: 5},
		{N: 12, P: 0.7, M: 4},
		{N: 5, P: 0.3, M: 3},
		{N: 10, P: 0.6, M: 3},
		{N: 6, P: 0.4, M: 4},
		{N: 10, P: 0.5, M: 4},
		// Where an earlier learnt s_min moved on too early: m = 5 below θ
		// (s_min learnt from too little), and p ≥ θ (clean runs before mastery).
		{N: 6, P: 0.4, M: 5},
		{N: 8, P: 0.3, M: 5},
		{N: 16, P: 0.8, M: 5},
		{N: 10, P: 0.7, M: 5},
		{N: 12, P: 0.8, M: 3},
		// Just below θ, where the learnt s_min's test is nearly at its
		// boundary: at α/8 these moved on early 0.005–0.020 times per run.
		{N: 8, P: 0.45, M: 4},
		{N: 7, P: 0.45, M: 4},
		{N: 12, P: 0.45, M: 5},
		{N: 5, P: 0.45, M: 5},
	} {
		sums, err := Compare([]string{"sequential"}, p, 400)
		require.NoError(t, err)
		want := ClosedFormRatio(p)
		got := sums[1].Ratio
		old := sequential(t, p, 400, window...)
		t.Logf("n=%d p=%v m=%d: baseline %.1f (closed %.1f), sequential %.1f (closed %.1f, window rule %.1f), ratio %.4f vs n·p^(n-1) = %.4f (%+.1f%%), premature %.3f (window %.3f)",
			p.N, p.P, p.M, sums[0].Mean, sums[0].ClosedForm, sums[1].Mean, sums[1].ClosedForm, old.Mean, got, want, 100*(got/want-1), sums[1].Premature, old.Premature)
		assert.InEpsilon(t, want, got, 0.25)
		assert.InEpsilon(t, sums[0].ClosedForm, sums[0].Mean, 0.1, "the baseline's mean is m/pⁿ")
		assert.Zero(t, sums[0].Capped+sums[1].Capped)
		assert.LessOrEqual(t, sums[1].Premature, old.Premature)
	}
	assert.InDelta(t, 1.0/16, ClosedFormRatio(Params{N: 8, P: 0.5, M: 4}), 1e-12)
}

// A step much harder than the ones before it (learning speed jumps): the
// learnt s_min of the easy steps must not leave it early, except when its
// first outcomes look like an easy step's — three successes at a rate of
// 0.1 before its failures mark it slower (slowerThanLearnt), which no rule
// that borrows from the easy steps can tell apart. Over 4000 seeds that
// is 0.002–0.004 premature moves per run (the window rule, which never
// borrows, has none; docs/curriculum.md#the-posterior-rule-default), and
// none with --learn-alpha 0.
func TestHardStepAfterEasyOnes(t *testing.T) {
	window := []curriculum.Option{curriculum.WithDecision(curriculum.DecisionWindow)}
	off := []curriculum.Option{curriculum.WithLearnAlpha(0)}
	for _, p := range []Params{
		{N: 8, P: 0.9, M: 4, Hard: 1, HardP: 0.1},
		{N: 12, P: 0.9, M: 4, Hard: 1, HardP: 0.1},
		{N: 16, P: 0.95, M: 4, Hard: 2, HardP: 0.1},
		{N: 10, P: 0.9, M: 3, Hard: 2, HardP: 0.15},
	} {
		post, win, never := sequential(t, p, 4000), sequential(t, p, 4000, window...), sequential(t, p, 4000, off...)
		t.Logf("%+v: premature %.4f (window %.4f, --learn-alpha 0 %.4f), episodes %.1f (window %.1f)", p, post.Premature, win.Premature, never.Premature, post.Mean, win.Mean)
		assert.LessOrEqual(t, post.Premature, 0.005)
		assert.Zero(t, never.Premature)
		assert.Less(t, post.Mean, win.Mean)
	}
}

// Where the window rule itself moves on too early (m ≥ 6 below θ: five
// successes in eight happen before mastery), the posterior and SPRT rules
// do so less often.
func TestFewerPrematureMovesBelowTheta(t *testing.T) {
	window := []curriculum.Option{curriculum.WithDecision(curriculum.DecisionWindow)}
	sprt := []curriculum.Option{curriculum.WithDecision(curriculum.DecisionSPRT)}
	for _, p := range []Params{{N: 8, P: 0.4, M: 8}, {N: 6, P: 0.4, M: 6}} {
		post, test, win := sequential(t, p, 400), sequential(t, p, 400, sprt...), sequential(t, p, 400, window...)
		t.Logf("n=%d p=%v m=%d: premature per run: posterior %.3f, sprt %.3f, window %.3f", p.N, p.P, p.M, post.Premature, test.Premature, win.Premature)
		assert.Positive(t, win.Premature)
		assert.Less(t, post.Premature, win.Premature)
		assert.Less(t, test.Premature, win.Premature)
	}
}

// The seed's ordering when the bottleneck is early: most subtasks easy,
// one hard subtask right after the start. Stepping back one checkpoint at
// a time wastes episodes on the easy suffix.
func TestHardSubtaskNearStart(t *testing.T) {
	p := Params{N: 8, P: 0.9, M: 4, Hard: 1, HardP: 0.1, MaxEpisodes: 100_000}
	sums, err := Compare([]string{"sequential", "heuristic", "search-learn"}, p, 400)
	require.NoError(t, err)
	seq, heur, sl := sums[1], sums[2], sums[3]
	t.Logf("sequential %.1f, heuristic %.1f, search-learn %.1f", seq.Mean, heur.Mean, sl.Mean)
	assert.Less(t, heur.Mean, seq.Mean)
	assert.LessOrEqual(t, sl.Mean, heur.Mean)
}

func TestLearner(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	l := NewLearner([]float64{0, 1, 1}, 2, false)
	assert.False(t, l.Episode(0, rng), "subtask 0 never succeeds")
	assert.True(t, l.Episode(1, rng))
	assert.True(t, l.Episode(1, rng))
	assert.Equal(t, 1.0, l.Prob(1))
	assert.False(t, l.Mastered())

	g := NewLearner([]float64{0.5}, 4, true)
	assert.Equal(t, 0.5, g.Prob(0))
	for !g.Episode(0, rng) {
	}
	assert.Equal(t, 0.625, g.Prob(0), "gradual: a quarter of the way to 1")
}

func TestCapStopsPathologicalRuns(t *testing.T) {
	r, err := Simulate(Baseline, Params{N: 30, P: 0.1, M: 4, MaxEpisodes: 500}, 1, false)
	require.NoError(t, err)
	assert.True(t, r.Capped)
	assert.Equal(t, 500, r.Episodes)
	assert.True(t, math.IsNaN(ClosedForm(Baseline, Params{N: 2, P: 0.5, M: 1, Gradual: true})))
}

// The learner is the seed's thought experiment (docs/curriculum.md): a curriculum that moves exactly when
// subtask k is mastered (an oracle) costs m/p per subtask, m·n/p in all.
// What Sequential pays above that is the decision's latency.
func TestOracleRollbackMatchesClosedForm(t *testing.T) {
	for _, p := range []Params{{N: 8, P: 0.5, M: 4}, {N: 10, P: 0.6, M: 3}, {N: 5, P: 0.3, M: 3}} {
		const seeds = 4000
		total := 0
		for seed := range uint64(seeds) {
			rng := rand.New(rand.NewPCG(seed, 0x5eed))
			l := NewLearner(p.Probs(), p.M, false)
			for k := p.N - 1; k >= 0; k-- {
				for l.Prob(k) < 1 {
					l.Episode(k, rng)
					total++
				}
			}
			require.True(t, l.Mastered())
		}
		mean := float64(total) / seeds
		t.Logf("n=%d p=%v m=%d: oracle rollback %.2f episodes, m·n/p = %.2f", p.N, p.P, p.M, mean, ClosedForm("sequential", p))
		assert.InEpsilon(t, ClosedForm("sequential", p), mean, 0.02)
	}
}

// Every point of a grid with uniform subtasks — n 4, 6, 8, 12, 16; p 0.35
// to 0.9; m 2 to 6; those whose baseline stays affordable — the posterior
// rule never moves on early more often than the window rule. At the learnt
// s_min's earlier error rate, α/8, it did at p = 0.45 and m = 4–5
// (docs/curriculum.md#the-posterior-rule-default).
func TestNoMorePrematureThanWindowOnAGrid(t *testing.T) {
	if testing.Short() {
		t.Skip("about 200 settings × 2 rules × 400 seeds")
	}
	window := []curriculum.Option{curriculum.WithDecision(curriculum.DecisionWindow)}
	points := 0
	for _, n := range []int{4, 6, 8, 12, 16} {
		for _, pp := range []float64{0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7, 0.8, 0.9} {
			for m := 2; m <= 6; m++ {
				p := Params{N: n, P: pp, M: m, Hard: -1}
				if ClosedForm(Baseline, p) > 2e5 {
					continue
				}
				points++
				post, win := sequential(t, p, 400), sequential(t, p, 400, window...)
				assert.LessOrEqual(t, post.Premature, win.Premature, "n=%d p=%.2f m=%d", n, pp, m)
				if post.Premature > 0 || win.Premature > 0 {
					t.Logf("n=%d p=%.2f m=%d: premature %.3f (window %.3f)", n, pp, m, post.Premature, win.Premature)
				}
			}
		}
	}
	t.Logf("%d points", points)
}

// sequential summarizes Sequential over seeds at p, with opts as the
// engine's options (none: the defaults).
func sequential(t *testing.T, p Params, seeds int, opts ...curriculum.Option) Summary {
	t.Helper()
	p.Options = opts
	sum, err := Summarize("sequential", p, seeds)
	require.NoError(t, err)
	return sum
}
