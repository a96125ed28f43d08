package curriculum

import "fmt"

// Strategy names a rollback strategy.
type Strategy string

// The seed's strategies (DESIGN.md §6).
const (
	Sequential  Strategy = "sequential"
	Heuristic   Strategy = "heuristic"
	Parallel    Strategy = "parallel"
	SearchLearn Strategy = "search-learn"
)

// Strategies lists every strategy, in documentation order.
var Strategies = []Strategy{Sequential, Heuristic, Parallel, SearchLearn}

// config holds the engine's parameters.
type config struct {
	strategy     Strategy
	decision     Decision
	alpha        float64 // α, the posterior rule's error rate
	minSuccesses int     // s_min, the posterior rule's fewest successes
	sprtAlpha    float64 // the SPRT's error rates
	delta        float64 // δ, the SPRT's half-width
	window       int     // W
	theta        float64 // θ
	thetaHigh    float64 // θ_high
	deltaMax     int     // δ_max
	segments     int     // M
	anchors      int     // N_anchor
	probes       int     // N_probe
	stuckAfter   int
	recorder     Recorder
	onMastered   func(Mastered)
}

func defaults() config {
	return config{strategy: Sequential, decision: DecisionPosterior, alpha: 0.125, minSuccesses: 4, sprtAlpha: 0.05, delta: 0.25, window: 8, theta: 0.5, thetaHigh: 0.625, deltaMax: 4,
		segments: 4, anchors: 8, probes: 1, stuckAfter: 32}
}

// Option configures an Engine.
type Option func(*config) error

// WithStrategy selects the rollback strategy (default Sequential).
func WithStrategy(s Strategy) Option {
	return func(c *config) error {
		for _, known := range Strategies {
			if s == known {
				c.strategy = s
				return nil
			}
		}
		return fmt.Errorf("%w: strategy %q: expected sequential, heuristic, parallel or search-learn", ErrInvalidOption, s)
	}
}

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

// WithWindow sets W, the number of recent episodes at a checkpoint that p̂
// is computed over (default 8, at most 64). A decision needs a full window,
// or enough outcomes in it that the free slots cannot change it.
func WithWindow(w int) Option {
	return intOpt("window", w, 1, 64, func(c *config) *int { return &c.window })
}

// WithTheta sets θ, below which a checkpoint is a bottleneck (default 0.5).
func WithTheta(t float64) Option {
	return func(c *config) error {
		if t <= 0 || t > 1 {
			return fmt.Errorf("%w: theta %v: expected (0, 1]", ErrInvalidOption, t)
		}
		c.theta = t
		return nil
	}
}

// WithThetaHigh sets θ_high, the success rate at which a checkpoint counts
// as mastered and the curriculum moves earlier (default 0.625).
func WithThetaHigh(t float64) Option {
	return func(c *config) error {
		if t <= 0 || t > 1 {
			return fmt.Errorf("%w: theta-high %v: expected (0, 1]", ErrInvalidOption, t)
		}
		c.thetaHigh = t
		return nil
	}
}

// WithDeltaMax sets δ_max, Heuristic Sequential's step when p̂ = 1 over the window (default 4).
func WithDeltaMax(d int) Option {
	return intOpt("delta-max", d, 1, 1<<20, func(c *config) *int { return &c.deltaMax })
}

// WithSegments sets M, Parallel Rollback's number of segments (default 4).
func WithSegments(m int) Option {
	return intOpt("segments", m, 1, 1<<20, func(c *config) *int { return &c.segments })
}

// WithAnchors sets N_anchor, Search-Learn's anchors per SEARCH (default 8).
func WithAnchors(n int) Option {
	return intOpt("anchors", n, 1, 1<<20, func(c *config) *int { return &c.anchors })
}

// WithProbes sets N_probe, Search-Learn's episodes per anchor (default 1).
func WithProbes(n int) Option {
	return intOpt("probes", n, 1, 1<<20, func(c *config) *int { return &c.probes })
}

// WithStuckAfter sets how many consecutive failed episodes at a checkpoint
// (p̂ = 0 throughout) flag it as stuck (default 32).
func WithStuckAfter(n int) Option {
	return intOpt("stuck-after", n, 1, 1<<30, func(c *config) *int { return &c.stuckAfter })
}

// Mastered is a curriculum decision: the strategy left checkpoint K of
// Task as mastered (stepped back from it, finished its segment, or ended a
// Search-Learn LEARN there).
type Mastered struct {
	Task string
	K    int
}

// WithOnMastered calls f for every checkpoint a strategy leaves as
// mastered, under the task's lock (f must not call the engine). Restore
// does not call it: the decisions it replays were heard before.
func WithOnMastered(f func(Mastered)) Option {
	return func(c *config) error {
		c.onMastered = f
		return nil
	}
}

// WithRecorder makes Observe store every outcome through r before it
// returns (default: none, state lives in memory only).
func WithRecorder(r Recorder) Option {
	return func(c *config) error {
		c.recorder = r
		return nil
	}
}

func intOpt(name string, v, lo, hi int, field func(*config) *int) Option {
	return func(c *config) error {
		if v < lo || v > hi {
			return fmt.Errorf("%w: %s %d: expected %d..%d", ErrInvalidOption, name, v, lo, hi)
		}
		*field(c) = v
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
