package sim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSequentialMatchesClosedFormRatio(t *testing.T) {
	for _, p := range []Params{
		{N: 8, P: 0.5, M: 4}, // n·pⁿ⁻¹ = 1/16
		{N: 6, P: 0.4, M: 4},
		{N: 10, P: 0.5, M: 4},
	} {
		sums, err := Compare([]string{"sequential"}, p, 200)
		require.NoError(t, err)
		want := ClosedFormRatio(p)
		got := sums[1].Ratio
		t.Logf("n=%d p=%v m=%d: baseline %.1f (closed %.1f), sequential %.1f (closed %.1f), ratio %.4f vs n·p^(n-1) = %.4f (%+.1f%%)",
			p.N, p.P, p.M, sums[0].Mean, sums[0].ClosedForm, sums[1].Mean, sums[1].ClosedForm, got, want, 100*(got/want-1))
		assert.InEpsilon(t, want, got, 0.25)
		assert.InEpsilon(t, sums[0].ClosedForm, sums[0].Mean, 0.1, "the baseline's mean is m/pⁿ")
		assert.Zero(t, sums[0].Capped+sums[1].Capped)
	}
	assert.InDelta(t, 1.0/16, ClosedFormRatio(Params{N: 8, P: 0.5, M: 4}), 1e-12)
}

func TestHardSubtaskNearStart(t *testing.T) {
	// Most subtasks easy, one hard subtask right after the start: stepping
	// back one checkpoint at a time wastes episodes on the easy suffix.
	p := Params{N: 8, P: 0.9, M: 4, Hard: 1, HardP: 0.1, MaxEpisodes: 100_000}
	sums, err := Compare([]string{"sequential", "heuristic", "search-learn"}, p, 200)
	require.NoError(t, err)
	seq, heur, sl := sums[1], sums[2], sums[3]
	t.Logf("sequential %.1f, heuristic %.1f, search-learn %.1f", seq.Mean, heur.Mean, sl.Mean)
	assert.Less(t, heur.Mean, seq.Mean)
	assert.Less(t, sl.Mean, seq.Mean)
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
