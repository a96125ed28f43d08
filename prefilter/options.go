package prefilter

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/rbx-sandbox/rbx/capacity"
	"github.com/rbx-sandbox/rbx/task"
)

type config struct {
	repeats     int
	concurrency int
	retries     int
	poolSize    int // -1: derived from the concurrency
	imageCheck  func(ctx context.Context, tk *task.Task) error
	previous    *Report
	progress    func(Progress)
	log         *slog.Logger
	budget      *capacity.Budget
}

// Option configures Run.
type Option func(*config) error

// Progress is reported after every finished repeat, and when a trajectory
// is decided (Decided is then set).
type Progress struct {
	// Done and Total count (trajectory, repeat) pairs; resumed and
	// unloadable trajectories count as done from the start.
	Done, Total int
	Decided     *Result
}

// WithRepeats sets how many independent replays a trajectory must pass (default 3).
func WithRepeats(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return fmt.Errorf("repeats %d: expected ≥ 1", n)
		}
		c.repeats = n
		return nil
	}
}

// WithConcurrency bounds the repeats running at once, across trajectories
// and within one (default 2).
func WithConcurrency(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return fmt.Errorf("concurrency %d: expected ≥ 1", n)
		}
		c.concurrency = n
		return nil
	}
}

// WithPoolSize sets how many warm sandboxes each task's pool keeps ready
// (default: 1 at concurrency 1, else 0 — sandboxes created on demand by the
// workers, which overlap creation with each other's replays; measured
// faster on a 2-core machine, see README). Never more than the task's
// repeats: a larger pool only creates sandboxes that are removed unused.
func WithPoolSize(n int) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("pool size %d: expected ≥ 0", n)
		}
		c.poolSize = n
		return nil
	}
}

// WithRetries sets how many times a repeat that failed for infrastructure
// reasons is retried on a fresh sandbox before it counts as infra
// (default 2; see reset.WithRetries).
func WithRetries(n int) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("retries %d: expected ≥ 0", n)
		}
		c.retries = n
		return nil
	}
}

// WithImageCheck sets how a task's image is checked before its first
// repeat: an error wrapping sandbox.ErrImageMissing rejects the task's
// trajectories with image_missing, one wrapping sandbox.ErrUnavailable
// stops the run. Default: create one sandbox for the task and remove it.
func WithImageCheck(f func(ctx context.Context, tk *task.Task) error) Option {
	return func(c *config) error { c.imageCheck = f; return nil }
}

// WithPrevious resumes from an earlier report: trajectories it decided
// (same key, content hash included) are not run again (default: none).
func WithPrevious(rep *Report) Option {
	return func(c *config) error { c.previous = rep; return nil }
}

// WithProgress sets a callback for progress (default: none). It is called
// from the worker goroutines, one call at a time.
func WithProgress(f func(Progress)) Option {
	return func(c *config) error { c.progress = f; return nil }
}

// WithBudget counts every sandbox prefilter holds (each task's warm ones,
// the repeats' and the image check's) against b (default: a budget of its
// own that never binds; the concurrency bounds what runs).
func WithBudget(b *capacity.Budget) Option {
	return func(c *config) error { c.budget = b; return nil }
}

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option { return func(c *config) error { c.log = l; return nil } }

func newConfig(opts []Option) (config, error) {
	c := config{repeats: 3, concurrency: 2, retries: 2, poolSize: -1,
		log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, o := range opts {
		if err := o(&c); err != nil {
			return c, err
		}
	}
	if c.budget == nil {
		c.budget, _ = capacity.New(1 << 20)
	}
	return c, nil
}
