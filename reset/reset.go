// Package reset is the primitive everything else stands on: Reset returns a
// live sandbox at checkpoint k of a trajectory, taken from a warm pool per
// task and replayed to k, retried on a fresh sandbox when the infrastructure
// (not the trajectory) failed. prefilter, serve and probe use it.
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
	rt    pool.Creator
	rp    *replayer.Replayer
	cfg   config
	mu    sync.Mutex
	pools map[string]*pool.Pool
	// digests are the prefix cache's task digests, by pool key.
	digests map[string]string
	out     map[string]handed // sandboxes handed out, by id
	noImage sync.Once         // logged: the backend reports no image id
	stages  map[string]*stage // by pool key
	closed  bool
}

type config struct {
	retries  int
	poolOpts []pool.Option
	log      *slog.Logger
	cache    *prefix.Cache
	staging  int
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

// WithPoolOptions passes options to every task's pool (size, concurrency,
// health check); default pool.New's defaults.
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

// New returns a Resetter creating sandboxes on rt and replaying with rp.
func New(rt pool.Creator, rp *replayer.Replayer, opts ...Option) (*Resetter, error) {
	cfg := config{retries: 2, log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		stageTimes: stageTimes{recheck: defaultRecheck, settle: defaultSettle}}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	return &Resetter{rt: rt, rp: rp, cfg: cfg, pools: map[string]*pool.Pool{}, digests: map[string]string{}, out: map[string]handed{},
		stages: map[string]*stage{}}, nil
}

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

// Warm creates the task's pool now, so its sandboxes start filling before
// the first reset.
func (r *Resetter) Warm(tk *task.Task) error {
	_, err := r.poolFor(tk)
	return err
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
	key := Key(tk)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return taskPool{}, pool.ErrClosed
	}
	if p, ok := r.pools[key]; ok {
		return taskPool{p, key, r.digests[key]}, nil
	}
	tmpl := pool.Template{Key: key, Spec: provision.Spec(tk),
		Prepare: func(ctx context.Context, sb sandbox.Sandbox) error { return provision.Prepare(ctx, sb, tk) }}
	p, err := pool.New(r.rt, tmpl, append([]pool.Option{pool.WithLogger(r.cfg.log)}, r.cfg.poolOpts...)...)
	if err != nil {
		return taskPool{}, fmt.Errorf("pool for task %q: %w", tk.ID, err)
	}
	r.pools[key] = p
	if r.cfg.cache != nil {
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
	r.closed = true
	pools, out := r.pools, r.out
	r.pools, r.out = map[string]*pool.Pool{}, map[string]handed{}
	r.mu.Unlock()
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
