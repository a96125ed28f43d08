package curriculum

import "fmt"

// WithDecision selects the rule that judges a checkpoint mastered or a
// bottleneck (default DecisionPosterior).
func WithDecision(d Decision) Option {
	return func(c *config) error {
		for _, known := range Decisions {
			if d == known {
				c.decision = d
				return nil
			}
		}
		return fmt.Errorf("%w: decision %q: expected posterior, window or sprt", ErrInvalidOption, d)
	}
}

// WithAlpha sets α, the posterior rule's error rate: it moves on when
// P(p > θ) ≥ 1 − α and calls a bottleneck when P(p < θ) ≥ 1 − α
// (default 0.125).
func WithAlpha(a float64) Option {
	return probOpt("alpha", a, func(c *config) *float64 { return &c.alpha })
}

// WithMinSuccesses sets s_min on a task's first checkpoint: the fewest
// successes the posterior rule moves on with before earlier checkpoints
// taught it a smaller one, and the most it ever asks (default 5).
func WithMinSuccesses(n int) Option {
	return intOpt("min-successes", n, 1, 64, func(c *config) *int { return &c.minSuccesses })
}

// WithLearnAlpha sets the error rate of the learnt s_min: the chance,
// per look, that the checkpoints already left make the posterior rule ask
// fewer successes of a policy that needs more and succeeds below θ until
// it has them (default 0.002). 0 learns nothing: every checkpoint asks
// --min-successes under the uniform prior.
//
// The test is exact at a rate of θ, so just below θ (p = 0.45, m = 4–5,
// where any s_min below m moves on early and the window rule never does)
// its level is about the share of runs that move on early: at α/8 = 0.016
// there were 0.007–0.020 premature moves per run at (8, 0.45, 4),
// (7, 0.45, 4), (12, 0.45, 5) and (5, 0.45, 5); at 0.002 none in 400 runs,
// and (10, 0.6, 3) still within 25 % of n·pⁿ⁻¹
// (docs/curriculum.md#the-posterior-rule-default).
func WithLearnAlpha(a float64) Option {
	return func(c *config) error {
		if a < 0 || a >= 0.5 {
			return fmt.Errorf("%w: learn-alpha %v: expected [0, 0.5)", ErrInvalidOption, a)
		}
		c.learnAlpha = a
		return nil
	}
}

// WithMinSuccessesFloor sets the fewest successes the learnt s_min asks
// for (default 3, capped by --min-successes).
//
// Sequential leaves a checkpoint only after s_min successes there, and each
// of them also rewards every later step: a step left with s_min rewards has
// at least 2·s_min by the time the curriculum leaves the checkpoint before
// it. With s_min ≥ 3 every step that needs m ≤ 6 rewards is mastered by
// then, so when the learnt s_min is too small at p ≥ θ (where the clean-run
// test has no power: runs are clean because p is high, not because the
// step was learnt) at most one unmastered step stays in the suffix and its
// rate p ≥ θ makes no move premature. With s_min 1 or 2 plus the borrowed
// prior, two or three unmastered steps pile up (p² < θ at p < 0.71):
// 0.11–0.43 premature moves per run at (12, 0.7, 4), (10, 0.6, 3),
// (16, 0.8, 5) (docs/curriculum.md#the-posterior-rule-default).
func WithMinSuccessesFloor(n int) Option {
	return intOpt("min-successes-floor", n, 1, 64, func(c *config) *int { return &c.sMinFloor })
}

// WithSPRTAlpha sets the SPRT's error rates: at most this share of its
// tests move on from a checkpoint whose success rate is θ − δ, and at most
// this share call one at θ + δ a bottleneck (default 0.05).
func WithSPRTAlpha(a float64) Option {
	return probOpt("sprt-alpha", a, func(c *config) *float64 { return &c.sprtAlpha })
}

// WithDelta sets δ, the SPRT's half-width: it tests p0 = θ − δ against
// p1 = θ + δ, which must lie in (0, 1) (default 0.25).
func WithDelta(d float64) Option {
	return func(c *config) error {
		if d <= 0 || d >= 0.5 {
			return fmt.Errorf("%w: delta %v: expected (0, 0.5)", ErrInvalidOption, d)
		}
		c.delta = d
		return nil
	}
}

// probOpt sets an error rate, which must lie in (0, 0.5).
func probOpt(name string, v float64, field func(*config) *float64) Option {
	return func(c *config) error {
		if v <= 0 || v >= 0.5 {
			return fmt.Errorf("%w: %s %v: expected (0, 0.5)", ErrInvalidOption, name, v)
		}
		*field(c) = v
		return nil
	}
}
