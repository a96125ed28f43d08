package rollout

import (
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/rbx-sandbox/rbx/task"
)

// Settings are the parameters every runner of rollouts shares (a probe's
// Prober, an intervention Runner). A runner embeds them in its
// configuration, starts from DefaultSettings and sets them with Options.
type Settings struct {
	// Rollouts is how many rollouts run (per checkpoint, in a probe).
	Rollouts int
	// Concurrency bounds the rollouts running at once.
	Concurrency int
	// MaxSteps bounds the actions of an agent's turn; 0: StepLimit's
	// default.
	MaxSteps int
	// EpisodeTimeout bounds the acting part of an episode; 0: the task's.
	EpisodeTimeout time.Duration
	// Seed seeds stochastic policies (RolloutSeed).
	Seed uint64
	// Log receives the runner's logs.
	Log *slog.Logger
}

// DefaultSettings are 8 rollouts, 4 at once, the step limit and episode
// timeout by default, seed 1 and logs discarded.
func DefaultSettings() Settings {
	return Settings{Rollouts: 8, Concurrency: 4, Seed: 1, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

// Option sets one of the Settings.
type Option func(*Settings) error

// Apply sets each option in turn; the first error is returned.
func (s *Settings) Apply(opts ...Option) error {
	for _, o := range opts {
		if err := o(s); err != nil {
			return err
		}
	}
	return nil
}

// RolloutSeed is the seed of rollout r: derived from (Seed, r), so that
// every rollout of a run draws differently and a run is repeatable.
func (s Settings) RolloutSeed(r int) uint64 { return s.Seed*1_000_003 + uint64(r) }

// StepLimit bounds an agent's turn with remaining reference steps ahead
// (T−k): MaxSteps, or 4·remaining + 16, room for a policy that explores.
func (s Settings) StepLimit(remaining int) int {
	if s.MaxSteps > 0 {
		return s.MaxSteps
	}
	return 4*remaining + 16
}

// Timeout is the acting time of an episode of tk: EpisodeTimeout, or the
// task's episode timeout.
func (s Settings) Timeout(tk *task.Task) time.Duration { return episodeTimeout(s.EpisodeTimeout, tk) }

// episodeTimeout is d, or tk's episode timeout when d is 0.
func episodeTimeout(d time.Duration, tk *task.Task) time.Duration {
	if d > 0 {
		return d
	}
	return tk.EpisodeTimeout()
}

// WithRollouts sets how many rollouts run (default 8).
func WithRollouts(n int) Option {
	return func(s *Settings) error {
		if n < 1 {
			return fmt.Errorf("rollouts %d: expected ≥ 1", n)
		}
		s.Rollouts = n
		return nil
	}
}

// WithConcurrency bounds the rollouts running at once (default 4).
func WithConcurrency(n int) Option {
	return func(s *Settings) error {
		if n < 1 {
			return fmt.Errorf("concurrency %d: expected ≥ 1", n)
		}
		s.Concurrency = n
		return nil
	}
}

// WithMaxSteps bounds the actions of an agent's turn, whatever the policy
// (default 4·(T−k) + 16).
func WithMaxSteps(n int) Option {
	return func(s *Settings) error {
		if n < 1 {
			return fmt.Errorf("max steps %d: expected ≥ 1", n)
		}
		s.MaxSteps = n
		return nil
	}
}

// WithEpisodeTimeout bounds the acting part of an episode (default: the
// task's episode timeout). When it expires the verifier still judges the
// state reached.
func WithEpisodeTimeout(d time.Duration) Option {
	return func(s *Settings) error {
		if d <= 0 {
			return fmt.Errorf("episode timeout %v: expected > 0", d)
		}
		s.EpisodeTimeout = d
		return nil
	}
}

// WithSeed seeds stochastic policies (default 1): rollout r gets a seed
// derived from (seed, r) (Settings.RolloutSeed).
func WithSeed(seed uint64) Option { return func(s *Settings) error { s.Seed = seed; return nil } }

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option { return func(s *Settings) error { s.Log = l; return nil } }
