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

// WithMinSuccesses sets s_min, the fewest successes the posterior rule
// moves on with (default 4; at most W).
func WithMinSuccesses(n int) Option {
	return intOpt("min-successes", n, 1, 64, func(c *config) *int { return &c.minSuccesses })
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
