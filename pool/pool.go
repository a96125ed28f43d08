// Package pool keeps sandboxes warm: started, with their session shell open
// and the task's files copied in, so that a reset only replays steps. Every
// sandbox is used once: Acquire hands it out, the caller removes it through
// Discard, and the pool refills in the background with bounded concurrency.
package pool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// ErrClosed is returned by Acquire on a closed pool.
var ErrClosed = errors.New("pool closed")

// Creator is what a pool needs of a runtime.
type Creator interface {
	Create(ctx context.Context, spec sandbox.Spec) (sandbox.Sandbox, error)
}

// Template describes the sandboxes a pool keeps warm.
type Template struct {
	// Key identifies the template in logs and labels (rbx.pool).
	Key string
	// Spec creates each sandbox.
	Spec sandbox.Spec
	// Prepare runs once on each new sandbox before it becomes idle (copying
	// the task's files in); nil for none.
	Prepare func(ctx context.Context, sb sandbox.Sandbox) error
}

// LabelPool marks pooled sandboxes with their template key (through
// sandbox.LabelValue, so a long key is shortened).
const LabelPool = "rbx.pool"

// Pool is a warm pool for one template. It is safe for concurrent use.
type Pool struct {
	rt     Creator
	tmpl   Template
	cfg    config
	idle   chan sandbox.Sandbox
	wake   chan struct{}
	stop   context.CancelFunc
	done   chan struct{}
	sem    chan struct{} // bounds concurrent creations
	rmSem  chan struct{} // bounds concurrent removals, apart: a burst of removals must not stall refills
	rmWG   sync.WaitGroup
	stats  counters
	closed atomic.Bool
}

type config struct {
	size        int
	concurrency int
	health      time.Duration
	log         *slog.Logger
	backoffMax  time.Duration
}

// Option configures a Pool.
type Option func(*config) error

// WithSize sets how many idle sandboxes the pool keeps ready (default 2; 0
// keeps none: every Acquire creates one on demand).
func WithSize(n int) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("pool size %d: expected ≥ 0", n)
		}
		c.size = n
		return nil
	}
}

// WithConcurrency bounds concurrent creations, and separately concurrent
// removals (default 4).
func WithConcurrency(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return fmt.Errorf("pool concurrency %d: expected ≥ 1", n)
		}
		c.concurrency = n
		return nil
	}
}

// WithHealthCheck sets the timeout of the liveness check run on a sandbox
// as it is handed out in session mode (default 5s; 0 disables the check).
func WithHealthCheck(d time.Duration) Option {
	return func(c *config) error { c.health = d; return nil }
}

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option { return func(c *config) error { c.log = l; return nil } }

// New starts a pool and begins filling it in the background.
func New(rt Creator, tmpl Template, opts ...Option) (*Pool, error) {
	cfg := config{size: 2, concurrency: 4, health: 5 * time.Second, backoffMax: 5 * time.Second,
		log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	tmpl.Spec = tmpl.Spec.WithDefaults()
	if err := tmpl.Spec.Validate(); err != nil {
		return nil, fmt.Errorf("pool %s: %w", tmpl.Key, err)
	}
	labels := make(map[string]string, len(tmpl.Spec.Labels)+1)
	for k, v := range tmpl.Spec.Labels {
		labels[k] = v
	}
	labels[LabelPool] = sandbox.LabelValue(tmpl.Key) // keys hold long task ids
	tmpl.Spec.Labels = labels
	ctx, cancel := context.WithCancel(context.Background())
	p := &Pool{rt: rt, tmpl: tmpl, cfg: cfg, idle: make(chan sandbox.Sandbox, max(cfg.size, 1)),
		wake: make(chan struct{}, 1), stop: cancel, done: make(chan struct{}), sem: make(chan struct{}, cfg.concurrency),
		rmSem: make(chan struct{}, cfg.concurrency)}
	go p.fill(ctx)
	return p, nil
}

// Key is the template key.
func (p *Pool) Key() string { return p.tmpl.Key }
