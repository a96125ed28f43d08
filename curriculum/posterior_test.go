package curriculum

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The posterior rule's error rate at a constant success rate p, against
// the window rule's, exactly: the probability that a full
// window of W = 8 outcomes makes the rule move on, summed over all 2⁸
// windows (docs/curriculum.md#error-rates).
func TestPosteriorMovesOnLessOftenPerLook(t *testing.T) {
	post, win := defaults(), defaults()
	win.decision = DecisionWindow
	for _, p := range []float64{0.2, 0.3, 0.4, 0.5, 0.6} {
		var pp, pw float64
		for w := range uint64(1) << 8 {
			s := kstats{window: w, n: 8, inWindow: 8, succ: bits.OnesCount64(w)}
			prob := math.Pow(p, float64(s.succ)) * math.Pow(1-p, float64(8-s.succ))
			if (&track{cfg: &post, stats: []kstats{s}}).verdict(0).mastered {
				pp += prob
			}
			if (&track{cfg: &win, stats: []kstats{s}}).verdict(0).mastered {
				pw += prob
			}
		}
		t.Logf("p = %.1f: moves on per full-window look: posterior %.4f, window %.4f", p, pp, pw)
		assert.Less(t, pp, pw)
	}
}

// At a constant success rate below θ (no learning), how often each rule
// leaves a checkpoint within 20 and 40 episodes.
func TestPosteriorLeavesConstantRateNoMoreOften(t *testing.T) {
	rules := map[Decision]config{}
	for _, d := range Decisions {
		c := defaults()
		c.decision = d
		rules[d] = c
	}
	for _, L := range []int{20, 40} {
		for _, p := range []float64{0.2, 0.3, 0.4, 0.5} {
			left := map[Decision]float64{}
			for d, cfg := range rules {
				rng := rand.New(rand.NewPCG(uint64(L), math.Float64bits(p)))
				const runs = 20_000
				for range runs {
					tr := newTrack(&cfg, TaskInfo{ID: "t", T: 1})
					for range L {
						tr.record(0, rng.Float64() < p)
						if tr.verdict(0).mastered {
							left[d] += 1.0 / runs
							break
						}
					}
				}
			}
			t.Logf("L = %d, p = %.1f: left within L episodes: posterior %.3f, window %.3f, sprt %.3f",
				L, p, left[DecisionPosterior], left[DecisionWindow], left[DecisionSPRT])
			assert.LessOrEqual(t, left[DecisionPosterior], left[DecisionWindow]+0.01)
		}
	}
}

// withFixedSMin is the posterior rule as before it learnt from earlier
// checkpoints (s_min and the uniform prior everywhere): the scripted
// decision tests count on it.
func withFixedSMin() Option { return WithLearnAlpha(0) }

// cleanTail against hand-computed tails.
func TestCleanTail(t *testing.T) {
	for _, tc := range []struct {
		caps  []int
		total int
		want  float64
	}{
		{[]int{4}, 3, 0.125},                 // θ³
		{[]int{1, 1, 1}, 3, 0.125},           // Binomial(3, ½) = 3
		{[]int{2, 2}, 4, 0.0625},             // both at the cap
		{[]int{3, 1}, 2, 0.25 + 2*0.5*0.125}, // X₁ ≥ 2, or X₁ = 1 and X₂ = 1
		{[]int{5}, 0, 1},
	} {
		assert.InDelta(t, tc.want, cleanTail(tc.caps, tc.total, 0.5), 1e-12, "%v ≥ %d", tc.caps, tc.total)
	}
}

// The learnt s_min's error rate: a policy that needs 5 successes and
// succeeds at θ before them (the worst case of H) — how often do the
// records of earlier checkpoints make s_min drop below 5? At most
// --learn-alpha per look and value of μ tested (3 and 4), here over 10
// checkpoints left after 5 successes each: at most 20 · --learn-alpha.
func TestLearntSMinErrorRate(t *testing.T) {
	cfg := defaults()
	rng := rand.New(rand.NewPCG(7, 7))
	const runs = 20_000
	wrong := 0
	for range runs {
		tr := &track{cfg: &cfg}
		for range 10 {
			succ, run := 0, 0
			for succ < 5 {
				if rng.Float64() < cfg.theta {
					succ, run = succ+1, run+1
				} else {
					run = 0
				}
			}
			tr.learnt = append(tr.learnt, leftRecord{succ: succ, first: succ - run + 1})
			if tr.learntSMin() < 5 {
				wrong++
				break
			}
		}
	}
	t.Logf("s_min dropped below 5 in %.4f of runs of 10 checkpoints (--learn-alpha %.4f per look)", float64(wrong)/runs, cfg.learnAlpha)
	assert.LessOrEqual(t, float64(wrong)/runs, 20*cfg.learnAlpha)
}

// learntSMin on hand-made records: what the clean runs of the checkpoints
// already left prove, never below --min-successes-floor nor above
// --min-successes. rec(s, c): s successes, the final run from success c.
func TestLearntSMin(t *testing.T) {
	rec := func(s, c int) leftRecord { return leftRecord{succ: s, first: c} }
	many := func(n int, r leftRecord) []leftRecord {
		var out []leftRecord
		for range n {
			out = append(out, r)
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		min    int
		floor  int
		level  float64
		learnt []leftRecord
		want   int
	}{
		{"one record proves nothing", 5, 3, 0.002, []leftRecord{rec(5, 1)}, 5},
		// Clean from the 1st success twice: at μ = 4, P = (1/16)² = 1/256 >
		// 0.002; three times: at μ = 3, P = (1/8)³ = 1/512 ≤ 0.002.
		{"twice clean", 5, 3, 0.002, many(2, rec(5, 1)), 5},
		{"three times clean", 5, 3, 0.002, many(3, rec(5, 1)), 3},
		// From the 1st, 1st and 2nd: at μ = 3, 8 of at most 9 clean
		// transitions (P = 4/512 > 0.002); at μ = 4, 11 of 12 (P = 4/4096).
		{"clean from the 1st, 1st and 2nd success", 5, 3, 0.002, append(many(2, rec(5, 1)), rec(5, 2)), 4},
		// The same at α/8 = 1/64, the level before: two records suffice.
		{"twice clean at 1/64", 5, 3, 1.0 / 64, many(2, rec(5, 1)), 3},
		{"many clean records stop at the floor", 5, 3, 0.002, many(8, rec(5, 1)), 3},
		{"a lower floor", 5, 2, 0.002, many(8, rec(5, 1)), 2},
		{"learning off", 5, 3, 0, many(8, rec(5, 1)), 5},
		// Every final run began at the 5th success: a failure came right
		// before each mastery, no clean transition below it.
		{"failures before every 5th success", 5, 3, 0.002, many(8, rec(5, 5)), 5},
		{"floor capped by --min-successes", 2, 3, 0.002, many(8, rec(5, 1)), 2},
		{"no record above the floor", 3, 3, 0.002, many(8, rec(5, 1)), 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := defaults()
			cfg.minSuccesses, cfg.sMinFloor, cfg.learnAlpha = tc.min, tc.floor, tc.level
			tr := &track{cfg: &cfg, learnt: tc.learnt}
			if tc.level == 0 { // posteriorVerdict asks --min-successes then
				assert.False(t, tr.learns(&kstats{}))
				return
			}
			assert.Equal(t, tc.want, tr.learntSMin())
		})
	}
}

// slowerThanLearnt: a checkpoint failing far more than the ones already left
// does not inherit their s_min. Records: 5 successes, 1 failure each (pooled
// Laplace rate q = 6/8 for one record, 21/26 for four).
func TestSlowerThanLearnt(t *testing.T) {
	for _, tc := range []struct {
		name       string
		records    int
		succ, fail int
		want       bool
	}{
		{"no outcomes yet", 1, 0, 0, false},
		{"as fast as before", 1, 3, 1, false},         // P(≤ 3 of 4) = 0.68
		{"one failure", 1, 0, 1, false},               // P = 1/4 > α
		{"two failures of two", 1, 0, 2, true},        // P = 1/16 ≤ α
		{"one success in eight", 1, 1, 7, true},       // a hard step after easy ones: P = 0.0004
		{"four in six, four records", 4, 4, 2, false}, // P = 0.33
		{"three in six, four records", 4, 3, 3, true}, // P = 0.090 ≤ α
		{"three in ten, four records", 4, 3, 7, true}, // P = 0.0007
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := defaults()
			tr := &track{cfg: &cfg}
			for range tc.records {
				tr.learnt = append(tr.learnt, leftRecord{succ: 5, first: 1, fails: 1})
			}
			s := &kstats{n: tc.succ + tc.fail, succ: tc.succ}
			assert.Equal(t, tc.want, tr.slowerThanLearnt(s))
		})
	}
}
