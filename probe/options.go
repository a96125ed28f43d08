package probe

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/rbx-sandbox/rbx/rollout"
)

// Modes of a probe.
const (
	// ModeSweep probes every selected checkpoint.
	ModeSweep = "sweep"
	// ModeSearch probes anchors spread uniformly, then narrows the domain
	// around the collapse (the seed's Search-Learn search phase).
	ModeSearch = "search"
)

type config struct {
	rollout.Settings
	threshold   float64
	confidence  float64
	mode        string
	anchors     int
	checkpoints Selection
	progress    func(Point)
}

func defaults() config {
	return config{Settings: rollout.DefaultSettings(), threshold: 0.5, confidence: 0.95, mode: ModeSweep, anchors: 8,
		checkpoints: Selection{All: true}}
}

// Option configures a Prober.
type Option func(*config) error

// shared is a rollout setting as a probe Option.
func shared(o rollout.Option) Option { return func(c *config) error { return o(&c.Settings) } }

// WithRollouts sets the rollouts per checkpoint, R (default 8).
func WithRollouts(n int) Option { return shared(rollout.WithRollouts(n)) }

// WithThreshold sets θ: a checkpoint whose p̂ is below it is a bottleneck
// candidate (default 0.5).
func WithThreshold(theta float64) Option {
	return func(c *config) error {
		if !(theta > 0 && theta <= 1) {
			return fmt.Errorf("threshold %v: expected 0 < θ ≤ 1", theta)
		}
		c.threshold = theta
		return nil
	}
}

// WithConfidence sets the level of the Wilson intervals (default 0.95).
func WithConfidence(level float64) Option {
	return func(c *config) error {
		if _, err := zFor(level); err != nil {
			return err
		}
		c.confidence = level
		return nil
	}
}

// WithConcurrency bounds the rollouts running at once (default 4).
func WithConcurrency(n int) Option { return shared(rollout.WithConcurrency(n)) }

// WithMode chooses ModeSweep (default) or ModeSearch.
func WithMode(m string) Option {
	return func(c *config) error {
		if m != ModeSweep && m != ModeSearch {
			return fmt.Errorf("mode %q: expected sweep or search", m)
		}
		c.mode = m
		return nil
	}
}

// WithAnchors sets the anchors per search round (default 8, the seed's
// N_anchor).
func WithAnchors(n int) Option {
	return func(c *config) error {
		if n < 2 {
			return fmt.Errorf("anchors %d: expected ≥ 2", n)
		}
		c.anchors = n
		return nil
	}
}

// WithCheckpoints selects the checkpoints (default: every valid k < T).
// In search mode they form the search domain.
func WithCheckpoints(s Selection) Option {
	return func(c *config) error { c.checkpoints = s; return nil }
}

// WithMaxSteps bounds the actions of an episode, whatever the policy
// (default 4·(T−k) + 16: room for a policy that explores).
func WithMaxSteps(n int) Option { return shared(rollout.WithMaxSteps(n)) }

// WithEpisodeTimeout bounds the acting part of an episode (default: the
// task's episode timeout). When it expires the verifier still judges the
// state reached.
func WithEpisodeTimeout(d time.Duration) Option { return shared(rollout.WithEpisodeTimeout(d)) }

// WithSeed seeds the episodes of stochastic policies (default 1): rollout
// r at k gets a seed derived from (seed, r).
func WithSeed(s uint64) Option { return shared(rollout.WithSeed(s)) }

// WithProgress is called once per checkpoint when its rollouts are done
// (default: none); calls are serialised.
func WithProgress(f func(Point)) Option { return func(c *config) error { c.progress = f; return nil } }

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option { return shared(rollout.WithLogger(l)) }
