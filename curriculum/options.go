package curriculum

import "fmt"

// Strategy names a rollback strategy.
type Strategy string

// The seed's strategies (docs/curriculum.md).
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
	learnAlpha   float64 // the learnt s_min's error rate; 0: nothing is learnt from earlier checkpoints
	sMinFloor    int     // the fewest successes the learnt s_min asks for
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
	return config{strategy: Sequential, decision: DecisionPosterior, alpha: 0.125, minSuccesses: 5, learnAlpha: 0.002, sMinFloor: 3, sprtAlpha: 0.05, delta: 0.25, window: 8, theta: 0.5, thetaHigh: 0.625, deltaMax: 4,
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

// WithWindow sets W, the number of recent episodes at a checkpoint the
// posterior and window rules look at (default 8, at most 64). The window
// rule needs a full window, or enough outcomes in it that the free slots
// cannot change its verdict.
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

// WithThetaHigh sets θ_high, the window rule's p̂ at which a checkpoint
// counts as mastered and the curriculum moves earlier (default 0.625).
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
