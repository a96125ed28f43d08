package intervene

import (
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/rbx-sandbox/rbx/evidence"
)

type config struct {
	rollouts    int
	k           int
	budget      int
	attempts    int
	maxShare    float64
	maxSteps    int
	concurrency int
	episode     time.Duration
	seed        uint64
	src         evidence.Source
	client      Client
	progress    func(Rollout)
	progressMu  *sync.Mutex
	log         *slog.Logger
}

func defaults() config {
	return config{rollouts: 8, budget: 4, attempts: 3, maxShare: 0.5, concurrency: 2, seed: 1, progressMu: &sync.Mutex{},
		log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

// Option configures a Runner.
type Option func(*config) error

// WithRollouts sets how many rollouts of the policy run (default 8).
func WithRollouts(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return fmt.Errorf("rollouts %d: expected ≥ 1", n)
		}
		c.rollouts = n
		return nil
	}
}

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
func WithMaxSteps(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return fmt.Errorf("max steps %d: expected ≥ 1", n)
		}
		c.maxSteps = n
		return nil
	}
}

// WithConcurrency bounds the rollouts handled at once (default 2); each
// holds one sandbox at a time, plus one per evidence scan.
func WithConcurrency(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return fmt.Errorf("concurrency %d: expected ≥ 1", n)
		}
		c.concurrency = n
		return nil
	}
}

// WithEpisodeTimeout bounds the acting part of each sandbox's episode
// (default: the task's episode timeout).
func WithEpisodeTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("episode timeout %v: expected > 0", d)
		}
		c.episode = d
		return nil
	}
}

// WithSeed seeds stochastic policies (default 1): rollout r gets a seed
// derived from (seed, r), the same for its rollout and its hand-back.
func WithSeed(s uint64) Option { return func(c *config) error { c.seed = s; return nil } }

// WithEvidenceSource sets how evidence states are materialised (default
// evidence.Replay on the Runner's resetter).
func WithEvidenceSource(src evidence.Source) Option {
	return func(c *config) error { c.src = src; return nil }
}

// WithServer runs the episodes on an rbx serve through c instead of the
// Runner's resetter (default: in-process): rollouts are reset at the
// checkpoint, intervened trajectories are forks of them, evidence comes
// from the server's evidence route. The task and reference given to Run
// must be the ones the server serves (the policies read them locally).
func WithServer(c Client) Option {
	return func(cfg *config) error {
		if c == nil {
			return fmt.Errorf("server client: nil")
		}
		cfg.client = c
		return nil
	}
}

// WithProgress is called once per finished rollout (default: none); calls
// are serialised.
func WithProgress(f func(Rollout)) Option {
	return func(c *config) error { c.progress = f; return nil }
}

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option { return func(c *config) error { c.log = l; return nil } }
