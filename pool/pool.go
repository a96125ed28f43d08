// Package pool keeps sandboxes of one class warm: started, with their
// session shell open, so that a reset only stages the task's files and
// replays steps. A sandbox is never handed out twice at once: Acquire
// hands it out, the caller gives it back with Discard (removed in the
// background) or Return (recycled in place when the pool recycles, and
// kept warm when the pool wants it). Every sandbox holds a slot of a
// capacity.Budget from before its creation until its removal has ended;
// the pool warms only with slots nobody waits for, and gives its idle
// sandboxes up when a waiter needs room (Evict).
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

	"github.com/rbx-sandbox/rbx/capacity"
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
	budget *capacity.Budget
	wake   chan struct{}
	stop   context.CancelFunc
	done   chan struct{}
	sem    chan struct{} // bounds concurrent creations
	rmSem  chan struct{} // bounds concurrent removals, apart: a burst of removals must not stall refills
	rcSem  chan struct{} // bounds concurrent recycles
	bgWG   sync.WaitGroup
	stats  counters
	closed atomic.Bool
	size   atomic.Int64 // the target of idle sandboxes

	waiting atomic.Int64 // acquisitions of this class in the budget's line
	pending atomic.Int64 // creations of handed-out sandboxes waiting for a permit

	mu     sync.Mutex
	arrive chan struct{}      // closed when a sandbox is parked idle
	idle   []*member          // oldest first
	line   []*ticket          // acquisitions waiting, oldest first (line.go)
	out    map[string]*member // handed out, by sandbox id
	rc     recycleState
}

// member is a sandbox of the pool and its budget slot.
type member struct {
	sb   sandbox.Sandbox
	slot *capacity.Slot
	// recycled counts the times it was returned to its fresh state.
	recycled int
}

type config struct {
	size        int
	concurrency int
	health      time.Duration
	log         *slog.Logger
	backoffMax  time.Duration
	budget      *capacity.Budget
	wait        time.Duration
	recycle     RecycleFunc
	yield       YieldFunc
}

// Option configures a Pool.
type Option func(*config) error

// WithSize sets how many idle sandboxes the pool keeps ready (default 2; 0
// keeps none: every Acquire creates one on demand). SetSize changes it.
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
// removals and recycles (default 4).
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

// WithBudget makes every sandbox of the pool hold a slot of b (default: a
// budget of the pool's own, large enough never to bind).
func WithBudget(b *capacity.Budget) Option {
	return func(c *config) error { c.budget = b; return nil }
}

// WithWait bounds how long Acquire waits in the budget's line for room
// (default: until its ctx ends); an error then wraps capacity.ErrFull.
func WithWait(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return fmt.Errorf("pool wait %v: expected ≥ 0", d)
		}
		c.wait = d
		return nil
	}
}

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
	b := cfg.budget
	if b == nil {
		b, _ = capacity.New(1 << 20)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Pool{rt: rt, tmpl: tmpl, cfg: cfg, budget: b, wake: make(chan struct{}, 1), stop: cancel, done: make(chan struct{}),
		sem: make(chan struct{}, cfg.concurrency), rmSem: make(chan struct{}, cfg.concurrency),
		rcSem: make(chan struct{}, cfg.concurrency), out: map[string]*member{}, arrive: make(chan struct{})}
	p.size.Store(int64(cfg.size))
	p.rc.on = cfg.recycle != nil
	go p.fill(ctx)
	return p, nil
}

// Key is the template key.
func (p *Pool) Key() string { return p.tmpl.Key }

// Spec is the spec the pool creates its sandboxes with.
func (p *Pool) Spec() sandbox.Spec { return p.tmpl.Spec }

// SetSize sets the target of idle sandboxes; idle ones beyond it are
// removed.
func (p *Pool) SetSize(n int) {
	n = max(n, 0)
	if p.size.Swap(int64(n)) == int64(n) {
		return
	}
	p.trim()
	p.poke()
}

// Size is the target of idle sandboxes.
func (p *Pool) Size() int { return int(p.size.Load()) }
