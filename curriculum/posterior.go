package curriculum

import "math/bits"

// posteriorVerdict is the default decision rule. Mastered when, for some
// run of the last j outcomes at k (1 ≤ j ≤ W) holding at least s_min
// successes, a uniform Beta(1, 1) prior updated with that run gives
// P(p > θ) ≥ 1 − α. The learner only improves, so any run of recent
// outcomes is a sample of success rates no higher than the current one:
// the run that started when the skill was learnt speaks for the present
// without the failures that preceded it. s_min is the fewest rewards that
// can teach a skill (the seed's m): fewer successes are luck, however
// clean. Low when the whole window gives P(p < θ) ≥ 1 − α. clear (p̂ ≫ θ,
// Heuristic's δ_max) when no outcome in the window failed.
func (t *track) posteriorVerdict(s *kstats) judgement {
	var j judgement
	for n := t.cfg.minSuccesses; n <= s.inWindow; n++ {
		succ := bits.OnesCount64(s.window & (uint64(1)<<n - 1))
		if succ >= t.cfg.minSuccesses && betaAbove(succ, n-succ, t.cfg.theta) >= 1-t.cfg.alpha {
			j.mastered = true
			break
		}
	}
	succ := bits.OnesCount64(s.window)
	j.low = 1-betaAbove(succ, s.inWindow-succ, t.cfg.theta) >= 1-t.cfg.alpha
	j.clear = succ == s.inWindow
	return j
}

// betaAbove is P(p > x) under Beta(1+s, 1+f), the posterior of s successes
// and f failures from a uniform prior. For integer parameters the
// regularized incomplete beta is a binomial tail:
// P(p ≤ x) = I_x(1+s, 1+f) = P(Binomial(s+f+1, x) ≥ s+1).
func betaAbove(s, f int, x float64) float64 {
	switch {
	case x <= 0:
		return 1
	case x >= 1:
		return 0
	}
	n := s + f + 1
	term, sum := 1.0, 0.0 // P(Binomial(n, x) = i), from i = 0
	for range n {
		term *= 1 - x
	}
	for i := 0; i <= s; i++ {
		sum += term
		term *= float64(n-i) / float64(i+1) * x / (1 - x)
	}
	return min(sum, 1)
}
