// Package reset is the primitive everything else stands on: Reset returns a
// live sandbox at checkpoint k of a trajectory, taken from the warm set of
// the task's sandbox class (ClassKey), the task's files staged into it, and
// replayed to k, retried on a fresh sandbox when the infrastructure (not
// the trajectory) failed. Every sandbox it holds counts against one
// capacity.Budget. prefilter, serve and probe use it.
package reset

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/rbx-sandbox/rbx/capacity"
	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/prefix"
	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
)

// Resetter hands out sandboxes reset to checkpoints. It is safe for
// concurrent use.
type Resetter struct {
	rt     pool.Creator
	rp     *replayer.Replayer
	cfg    config
	budget *capacity.Budget
	demand *demand
	mu     sync.Mutex
	pools  map[string]*pool.Pool // by class key
	// digests are the prefix cache's task digests, by task key (Key).
	digests map[string]string
	out     map[string]handed // sandboxes handed out, by id
	noImage sync.Once         // logged: the backend reports no image id
	stages  map[string]*stage // by task key
	closed  bool
	stop    chan struct{}
	planned chan struct{} // closed when the planner has stopped
	unevict func()        // removes the evictor from the budget
}

type config struct {
	retries  int
	poolOpts []pool.Option
	log      *slog.Logger
	cache    *prefix.Cache
	staging  int
	// stageAfter is how many requests at a checkpoint start its stage.
	stageAfter int
	budget     *capacity.Budget
	// warm < 0: every class keeps its pool size; ≥ 0: the total of idle
	// sandboxes, split by demand (WithWarm).
	warm     int
	classMax int
	wait     time.Duration
	recycle  pool.RecycleFunc
	// stageTimes are the stage's ping and settle intervals.
	stageTimes stageTimes
}

// Option configures a Resetter.
type Option func(*config) error

// WithRetries sets how many times a reset that failed for infrastructure
// reasons (sandbox died, engine unavailable) is retried on a fresh sandbox
// (default 2). Divergences are never retried: they are the trajectory's.
func WithRetries(n int) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("retries %d: expected ≥ 0", n)
		}
		c.retries = n
		return nil
	}
}

// WithPoolOptions passes options to every class's pool (size, concurrency,
// health check); default pool.New's defaults. Without WithWarm every class
// keeps the size given here idle from its first reset (or Warm) on; with
// it the size is the most one class keeps.
func WithPoolOptions(opts ...pool.Option) Option {
	return func(c *config) error { c.poolOpts = append(c.poolOpts, opts...); return nil }
}

// WithPrefixCache reuses the state after the longest reusable prefix of
// [0, k) from c and replays only the rest live (default: none, every reset
// replays [0, k) live). prefilter, which must prove that replay works,
// does not use it.
func WithPrefixCache(c *prefix.Cache) Option {
	return func(cfg *config) error { cfg.cache = c; return nil }
}

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option { return func(c *config) error { c.log = l; return nil } }

// WithBudget counts every sandbox the resetter holds (warm, staged,
// handed out, being created, recycled or removed) against b, shared with
// whatever else the process runs (default: a budget of its own that never
// binds).
func WithBudget(b *capacity.Budget) Option {
	return func(c *config) error { c.budget = b; return nil }
}

// WithWarm makes warming follow demand: n idle sandboxes in all (warm and
// staged), split between the classes by their decayed reset rate, none
// for a class nobody asked for lately, none at all before the first reset
// (but for Prewarm) (default: every class keeps its pool size).
func WithWarm(n int) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("warm %d: expected ≥ 0", n)
		}
		c.warm = n
		return nil
	}
}

// WithRecycle returns the sandboxes of ended episodes to their fresh state
// in place through f instead of removing them, in every class where that
// is measured cheaper (see pool.WithRecycle) (default: removed).
func WithRecycle(f pool.RecycleFunc) Option {
	return func(c *config) error { c.recycle = f; return nil }
}

// New returns a Resetter creating sandboxes on rt and replaying with rp.
func New(rt pool.Creator, rp *replayer.Replayer, opts ...Option) (*Resetter, error) {
	cfg := config{retries: 2, log: slog.New(slog.NewTextHandler(io.Discard, nil)), warm: -1, stageAfter: 1,
		stageTimes: stageTimes{recheck: defaultRecheck, settle: defaultSettle}}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	b := cfg.budget
	if b == nil {
		b, _ = capacity.New(1 << 20)
	}
	r := &Resetter{rt: rt, rp: rp, cfg: cfg, budget: b, demand: newDemand(), pools: map[string]*pool.Pool{},
		digests: map[string]string{}, out: map[string]handed{}, stages: map[string]*stage{},
		stop: make(chan struct{}), planned: make(chan struct{})}
	r.unevict = b.AddEvictor(r.evict)
	go r.planLoop()
	return r, nil
}

// Budget is the budget the resetter's sandboxes count against.
func (r *Resetter) Budget() *capacity.Budget { return r.budget }

// Key identifies a task's pool: its id and everything that shapes its
// sandboxes, so an edited task never gets a stale warm sandbox.
func Key(tk *task.Task) string {
	b, _ := json.Marshal(struct {
		Spec  sandbox.Spec
		Files map[string]string
		Dir   string
	}{provision.Spec(tk), tk.Files, tk.Dir})
	h := sha256.Sum256(b)
	return tk.ID + "-" + hex.EncodeToString(h[:6])
}

// Warm creates the pool of the task's class now, so its sandboxes start
// filling before the first reset; with WithWarm it also counts as demand
// for the class (--prewarm), so that the class gets its share of the warm
// sandboxes until that demand fades.
func (r *Resetter) Warm(tk *task.Task) error {
	p, err := r.poolFor(tk)
	if err != nil || r.cfg.warm < 0 {
		return err
	}
	r.demand.observe(p.Key(), tk.ID, -1, max(1, r.classLimit()))
	r.plan()
	return nil
}

func (r *Resetter) poolFor(tk *task.Task) (*pool.Pool, error) {
	tp, err := r.taskPool(tk)
	return tp.pool, err
}

// taskPool is a task's pool, its key and its prefix cache digest ("" when
// the cache is off or the task's files cannot be read).
type taskPool struct {
	pool        *pool.Pool
	key, digest string
}

func (r *Resetter) taskPool(tk *task.Task) (taskPool, error) {
	key, class := Key(tk), ClassKey(tk)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return taskPool{}, pool.ErrClosed
	}
	p, ok := r.pools[class]
	if !ok {
		spec := ClassSpec(tk)
		spec.Labels[LabelClass] = class
		why := sandbox.CanRecycle(r.rt, spec)
		recycling := r.cfg.recycle != nil && why == nil
		spec.Recycle = recycling
		opts := append([]pool.Option{pool.WithLogger(r.cfg.log), pool.WithBudget(r.budget), pool.WithWait(r.cfg.wait)}, r.cfg.poolOpts...)
		switch {
		case recycling:
			opts = append(opts, pool.WithRecycle(r.cfg.recycle),
				pool.WithYield(func(front string, held int) bool { return r.yields(class, held, front) }))
		case r.cfg.recycle != nil:
			r.cfg.log.Info("pool: not recycled: its sandboxes are removed after each episode", "pool", class, "why", why)
		}
		var err error
		if p, err = pool.New(r.rt, pool.Template{Key: class, Spec: spec}, opts...); err != nil {
			return taskPool{}, fmt.Errorf("pool for task %q: %w", tk.ID, err)
		}
		if r.cfg.warm >= 0 {
			p.SetSize(0) // demand sets it (plan)
		}
		r.pools[class] = p
	}
	if _, ok := r.digests[key]; !ok && r.cfg.cache != nil {
		d, err := taskDigest(key, tk)
		if err != nil {
			r.cfg.log.Warn("prefix cache off for this task: its files cannot be read", "task", tk.ID, "err", err)
		}
		r.digests[key] = d
	}
	return taskPool{p, key, r.digests[key]}, nil
}

// Stats returns every pool's counters.
func (r *Resetter) Stats() []pool.Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]pool.Stats, 0, len(r.pools))
	for _, p := range r.pools {
		out = append(out, p.Stats())
	}
	return out
}

// handed is a sandbox handed out by Reset and the pool it came from.
type handed struct {
	sb   sandbox.Sandbox
	pool *pool.Pool
}

// Close removes the sandboxes handed out and not released (a drain on
// Ctrl-C must leave nothing behind), then closes every pool, removing the
// idle sandboxes, and waits for the removals.
func (r *Resetter) Close(ctx context.Context) error {
	r.mu.Lock()
	if !r.closed {
		close(r.stop)
	}
	r.closed = true
	pools, out := r.pools, r.out
	r.pools, r.out = map[string]*pool.Pool{}, map[string]handed{}
	r.mu.Unlock()
	<-r.planned
	r.unevict()
	r.stopStages()
	for _, h := range out {
		h.pool.Discard(h.sb)
	}
	var errs []error
	for _, p := range pools {
		errs = append(errs, p.Close(ctx))
	}
	if r.cfg.cache != nil {
		r.cfg.cache.Close()
	}
	return errors.Join(errs...)
}

// PrefixCache returns the prefix cache resets use, nil when off.
func (r *Resetter) PrefixCache() *prefix.Cache { return r.cfg.cache }
