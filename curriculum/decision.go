package curriculum

import (
	"math"
	"math/bits"
)

// Decision names the rule that judges a checkpoint from its outcomes
// (docs/curriculum.md#decision-rules).
type Decision string

// The decision rules.
const (
	// DecisionPosterior moves on when a Beta(1, 1) posterior on the recent
	// outcomes gives P(p > θ) ≥ 1 − α, on at least s_min successes.
	DecisionPosterior Decision = "posterior"
	// DecisionSPRT is Wald's sequential probability ratio test of
	// p0 = θ − δ against p1 = θ + δ with error rates α_sprt.
	DecisionSPRT Decision = "sprt"
	// DecisionWindow moves on when p̂ ≥ θ_high over a window of W outcomes
	// (or when the window's free slots can no longer change that).
	DecisionWindow Decision = "window"
)

// Decisions lists the decision rules, the default first.
var Decisions = []Decision{DecisionPosterior, DecisionWindow, DecisionSPRT}

// judgement is a decision rule's verdict on one checkpoint.
type judgement struct {
	mastered bool // the curriculum may move on
	low      bool // a bottleneck: p < θ
	clear    bool // p̂ ≫ θ, Heuristic's δ_max step: not one failure in the evidence
}

// verdict judges checkpoint k by the engine's decision rule.
func (t *track) verdict(k int) judgement {
	s := &t.stats[k]
	if s.n == 0 {
		return judgement{}
	}
	switch t.cfg.decision {
	case DecisionWindow:
		return t.windowVerdict(s)
	case DecisionSPRT:
		return judgement{mastered: s.test == testMastered, low: s.test == testLow, clear: s.succ == s.n}
	}
	return t.posteriorVerdict(s)
}

// windowVerdict decides p̂(k) against the thresholds once the window
// settles it: mastered when p̂ ≥ θ_high, low when p̂ < θ, over a full
// window of W episodes — or earlier, when the successes already in the
// window make the outcome of its free slots irrelevant (at least θ_high·W
// successes, or fewer than θ·W even if every free slot succeeded).
//
// clear is p̂ = 1 over the episodes in the window. With the early verdict
// that is θ_high·W straight successes (5 of 5 at the defaults), never a
// full window: the verdict has moved on at 5 of 5, so asking for W of W
// would never jump. It is the seed's "p̂ ≫ θ" all the same: the same point
// estimate, 1, and 5 straight successes have probability θ_high⁵ < 0.1 at
// a success rate of θ_high (docs/curriculum.md#heuristic-step).
func (t *track) windowVerdict(s *kstats) judgement {
	w := float64(t.cfg.window)
	succ := bits.OnesCount64(s.window)
	free := w - float64(s.inWindow)
	const eps = 1e-9
	return judgement{
		mastered: float64(succ) >= t.cfg.thetaHigh*w-eps,
		low:      float64(succ)+free < t.cfg.theta*w-eps,
		clear:    succ == s.inWindow,
	}
}

// testResult is the result of a checkpoint's last completed SPRT.
type testResult uint8

const (
	testNone     testResult = iota // no test completed yet
	testMastered                   // accepted p ≥ θ + δ
	testLow                        // accepted p ≤ θ − δ
)

// sprtRecord advances checkpoint s's SPRT by one outcome. Each success adds
// log(p1/p0) to the log-likelihood ratio, each failure log((1−p1)/(1−p0));
// the test accepts p1 (mastered) at log((1−α)/α) and p0 (a bottleneck) at
// log(α/(1−α)). Either ends the test and the next outcome starts a new
// one: the learner changes while it trains, so a bottleneck is tested
// again rather than carrying its failures into the next decision.
func (t *track) sprtRecord(s *kstats, success bool) {
	if t.cfg.decision != DecisionSPRT {
		return
	}
	p0, p1 := t.cfg.theta-t.cfg.delta, t.cfg.theta+t.cfg.delta
	if success {
		s.llr += math.Log(p1 / p0)
	} else {
		s.llr += math.Log((1 - p1) / (1 - p0))
	}
	// The tolerance keeps a bound that is an exact multiple of the steps
	// from depending on rounding (α = 0.1, δ = 0.25: two steps of log 3
	// make exactly log 9).
	const eps = 1e-9
	bound := math.Log((1 - t.cfg.sprtAlpha) / t.cfg.sprtAlpha)
	switch {
	case s.llr >= bound-eps:
		s.test, s.llr = testMastered, 0
	case s.llr <= -bound+eps:
		s.test, s.llr = testLow, 0
	}
}
