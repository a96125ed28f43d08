package intervene

import (
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/rbx-sandbox/rbx/evidence"
	"github.com/rbx-sandbox/rbx/rollout"
)

type config struct {
	rollout.Settings
	k          int
	budget     int
	attempts   int
	maxShare   float64
	src        evidence.Source
	progress   func(Rollout)
	progressMu *sync.Mutex
}

func defaults() config {
	s := rollout.DefaultSettings()
	s.Concurrency = 2
	return config{Settings: s, budget: 4, attempts: 3, maxShare: 0.5, progressMu: &sync.Mutex{}}
}

// Option configures a Runner.
type Option func(*config) error

// shared is a rollout setting as an intervene Option.
func shared(o rollout.Option) Option { return func(c *config) error { return o(&c.Settings) } }

// WithRollouts sets how many rollouts of the policy run (default 8).
func WithRollouts(n int) Option { return shared(rollout.WithRollouts(n)) }

// WithCheckpoint sets the checkpoint k the rollouts start from (default 0,
// the task's start).
func WithCheckpoint(k int) Option {
	return func(c *config) error {
		if k < 0 {
			return fmt.Errorf("checkpoint %d: expected ≥ 0", k)
		}
		c.k = k
		return nil
	}
}

// WithBudget bounds the intervener's actions per intervention (default 4).
func WithBudget(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return fmt.Errorf("intervention budget %d: expected ≥ 1", n)
		}
		c.budget = n
		return nil
	}
}

// WithAttempts bounds the interventions tried per failed rollout (default
// 3): when one fails the verifier, the next forks budget actions earlier
// (never before the rollout's start), since the mistake may precede the
// point where the evidence stopped improving.
func WithAttempts(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return fmt.Errorf("attempts %d: expected ≥ 1", n)
		}
		c.attempts = n
		return nil
	}
}

// WithMaxShare sets the shift filter: a rescued trajectory whose
// intervened share of steps or of tokens exceeds x is marked
// shift_exceeded and dropped (default 0.5, as rbx serve's
// --max-intervention-share).
func WithMaxShare(x float64) Option {
	return func(c *config) error {
		if x < 0 || x > 1 {
			return fmt.Errorf("max intervention share %v: expected 0 ≤ x ≤ 1", x)
		}
		c.maxShare = x
		return nil
	}
}

// WithMaxSteps bounds the actions of each agent's turn (the rollout, the
// policy after an intervention); default 4·(T−k)+16.
func WithMaxSteps(n int) Option { return shared(rollout.WithMaxSteps(n)) }

// WithConcurrency bounds the rollouts handled at once (default 2); each
// holds one sandbox at a time, plus one per evidence scan.
func WithConcurrency(n int) Option { return shared(rollout.WithConcurrency(n)) }

// WithEpisodeTimeout bounds the acting part of each sandbox's episode
// (default: the task's episode timeout); in process only (a server applies
// its own).
func WithEpisodeTimeout(d time.Duration) Option { return shared(rollout.WithEpisodeTimeout(d)) }

// WithSeed seeds stochastic policies (default 1): rollout r gets a seed
// derived from (seed, r), the same for its rollout and its hand-back.
func WithSeed(s uint64) Option { return shared(rollout.WithSeed(s)) }

// WithEvidenceSource sets how evidence states are materialised in process
// (default evidence.Replay on the Runner's resetter; unused with NewOn,
// whose Env scores its own evidence).
func WithEvidenceSource(src evidence.Source) Option {
	return func(c *config) error { c.src = src; return nil }
}

// WithProgress is called once per finished rollout (default: none); calls
// are serialised.
func WithProgress(f func(Rollout)) Option {
	return func(c *config) error { c.progress = f; return nil }
}

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option { return shared(rollout.WithLogger(l)) }
