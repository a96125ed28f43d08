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
