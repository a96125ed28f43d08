package reset

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/rbx-sandbox/rbx/capacity"
	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/prefix"
	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// WithStaging keeps up to n sandboxes per task restored, in the
// background, to the prefix cache entry the task's last reset used, so
// that the next resets at that checkpoint (a group, a curriculum that
// stays at k) take one ready instead of restoring on their path (default
// 0: none). A task is staged only once its checkpoint was asked for often
// enough lately (WithStageAfter), with slots of the budget nobody waits for; staged
// sandboxes are the first evicted when a waiter needs room. They are
// dropped when a reset uses another entry, when nobody asked for the
// checkpoint lately, when the entry outlives the cache's age bound, and
// at Close. Needs WithPrefixCache.
func WithStaging(n int) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("staging %d: expected ≥ 0", n)
		}
		c.staging = n
		return nil
	}
}

// Stage timing defaults (config.stageTimes).
const (
	// defaultRecheck is how long a staged sandbox is handed out on its
	// last proof of life (the restore's own check, then the stage's
	// background pings): an idle container does not die by itself, and
	// the pool checks its idle sandboxes the same way. The stage pings a
	// parked sandbox after half of it, so a hand-out does no I/O unless
	// the background fell behind.
	defaultRecheck = 30 * time.Second
	// defaultSettle is how long the stage waits after the first take of a
	// burst before it restores replacements: a group takes its sandboxes
	// within milliseconds, and a top-up started inside the burst (a pool
	// refill, a restore) would compete with the hand-outs and the answer
	// for the same cores. Counted from the first take, not the last, and
	// not again once a top-up runs, so that a steady stream of resets
	// never starves it.
	defaultSettle = 100 * time.Millisecond
)

// stageTimes are the stage's timings (tests shorten them).
type stageTimes struct{ recheck, settle time.Duration }

// staged is a sandbox restored to a stage's entry, and when it was last
// proved alive (by its restore's check or a ping).
type staged struct {
	sb     sandbox.Sandbox
	proved time.Time
}

// stage holds sandboxes of one task restored to one entry.
type stage struct {
	task   *task.Task
	k      int
	budget *capacity.Budget
	entry  *prefix.Entry
	size   int
	times  stageTimes
	wake   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
	pool   *pool.Pool

	mu    sync.Mutex
	ready []*staged
	// burst is the first take since the stage was last full (zero: none).
	burst time.Time
}

// WithStageAfter stages a checkpoint only once it was asked for in n
// reset requests lately (a group is one request; the count decays with
// demand's half-life) (default 1: after the first). rbx serve uses 2: a
// trainer that samples tasks at random from a dataset rarely asks for the
// same checkpoint twice, and a stage would hold sandboxes for nothing.
func WithStageAfter(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return fmt.Errorf("stage after %d requests: expected ≥ 1", n)
		}
		c.stageAfter = n
		return nil
	}
}

// stageEntry makes e the entry the task's stage restores sandboxes to,
// once reset at tk's k has been asked for often enough.
func (r *Resetter) stageEntry(tp taskPool, e *prefix.Entry, tk *task.Task, k int) {
	if r.cfg.staging == 0 || e == nil || r.demand.point(tk.ID, k) < float64(r.cfg.stageAfter)-0.5 { // half a request of slack for the decay
		return
	}
	r.mu.Lock()
	old := r.stages[tp.key]
	if r.closed || (old != nil && old.entry == e) {
		r.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	st := &stage{task: tk, k: k, budget: r.budget, entry: e, size: r.cfg.staging, times: r.cfg.stageTimes, wake: make(chan struct{}, 1),
		cancel: cancel, done: make(chan struct{}), pool: tp.pool}
	r.stages[tp.key] = st
	r.mu.Unlock()
	if old != nil {
		go old.stop()
	}
	go r.runStage(ctx, st)
}

// runStage keeps st's sandboxes topped up and proved alive until it is
// stopped.
func (r *Resetter) runStage(ctx context.Context, st *stage) {
	defer close(st.done)
	c := r.cfg.cache
	topping := false // a top-up is under way: takes no longer defer it
	for ctx.Err() == nil {
		st.reprove(ctx, r)
		full, quiet := st.state()
		if full {
			topping = false
		}
		deferred := !topping && quiet > 0 // a burst is still settling (never when full)
		if full || deferred || !c.Fresh(st.entry) {
			wait := st.times.recheck / 4 // the next ping round; the entry may age out
			if deferred {
				wait = quiet
			}
			select {
			case <-st.wake:
			case <-ctx.Done():
			case <-time.After(wait):
			}
			continue
		}
		topping = true
		sb, err := st.acquire(ctx)
		if err != nil {
			return
		}
		if sb == nil { // no room nobody waits for: wait for a release
			select {
			case <-st.budget.Changed():
			case <-st.wake:
			case <-ctx.Done():
			}
			continue
		}
		st.pool.Mark(sb, capacity.Staged)
		err = provision.Prepare(ctx, sb, st.task)
		if err == nil {
			err = c.Apply(ctx, st.entry, sb)
		}
		if err != nil {
			st.pool.Discard(sb)
			if prefix.IsApplyError(err) || ctx.Err() != nil {
				return
			}
			r.cfg.log.Warn("prefix cache: staging a sandbox", "sandbox", sb.ID(), "err", err)
			time.Sleep(time.Second)
			continue
		}
		ok, full := st.put(sb)
		if !ok {
			st.pool.Return(sb) // alive and not needed here: back to its class
		}
		if full { // the top-up is over: a take from now on starts a burst
			topping = false
		}
	}
}

// acquire takes a sandbox of the class for the stage without delaying
// demand: an idle one, or a new one with a slot nobody waits for; nil when
// there is neither.
func (st *stage) acquire(ctx context.Context) (sandbox.Sandbox, error) {
	// An idle sandbox taken while resets wait would be evicted for them
	// at once (a removal, then a creation for the waiter).
	if _, waiting := st.budget.Head(); waiting {
		return nil, nil
	}
	if sb := st.pool.Take(ctx); sb != nil {
		return sb, nil
	}
	lease, ok := st.budget.TryAcquire(1)
	if !ok {
		return nil, nil
	}
	return st.pool.AcquireWith(ctx, lease.Slot())
}

// evict removes up to n staged sandboxes for a waiter of the budget.
func (st *stage) evict(n int) int {
	if n <= 0 {
		return 0
	}
	st.mu.Lock()
	n = min(n, len(st.ready))
	victims := st.ready[:n]
	st.ready = append([]*staged(nil), st.ready[n:]...)
	st.mu.Unlock()
	for _, s := range victims {
		st.pool.DiscardEvicted(s.sb)
	}
	return n
}

// state reports whether the stage is full (which ends the burst), and how
// long until the burst's first take is settle old (0: settled, or no take).
func (st *stage) state() (full bool, quiet time.Duration) {
	st.mu.Lock()
	defer st.mu.Unlock()
	full = len(st.ready) >= st.size
	switch {
	case full:
		st.burst = time.Time{}
	case !st.burst.IsZero():
		quiet = max(0, st.times.settle-time.Since(st.burst))
	}
	return full, quiet
}

// put parks a restored sandbox (false when the stage is full) and reports
// whether the stage is full now, which ends the burst.
func (st *stage) put(sb sandbox.Sandbox) (ok, full bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.ready) < st.size {
		st.ready = append(st.ready, &staged{sb: sb, proved: time.Now()})
		ok = true
	}
	full = len(st.ready) >= st.size
	if full {
		st.burst = time.Time{}
	}
	return ok, full
}

// take hands out the most recently proved staged sandbox, or nil.
func (st *stage) take() *staged {
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.ready) == 0 {
		return nil
	}
	best := 0
	for i, s := range st.ready {
		if s.proved.After(st.ready[best].proved) {
			best = i
		}
	}
	s := st.ready[best]
	st.ready = append(st.ready[:best], st.ready[best+1:]...)
	if st.burst.IsZero() {
		st.burst = time.Now()
	}
	return s
}

// reprove pings the parked sandboxes whose proof is half a recheck old,
// outside the lock (a reset may take one meanwhile: it then carries the
// older proof, still within recheck), and discards those that no longer
// answer.
func (st *stage) reprove(ctx context.Context, r *Resetter) {
	st.mu.Lock()
	var due []*staged
	for _, s := range st.ready {
		if time.Since(s.proved) >= st.times.recheck/2 {
			due = append(due, s)
		}
	}
	st.mu.Unlock()
	for _, s := range due {
		ok := alive(ctx, s.sb)
		st.mu.Lock()
		for i, p := range st.ready {
			if p != s {
				continue
			}
			if ok {
				p.proved = time.Now()
			} else {
				st.ready = append(st.ready[:i], st.ready[i+1:]...)
			}
			break
		}
		st.mu.Unlock()
		if !ok && ctx.Err() == nil {
			r.cfg.log.Warn("prefix cache: a staged sandbox stopped answering; replacing it", "sandbox", s.sb.ID())
			st.pool.Discard(s.sb)
		}
	}
}

// stop ends the stage and gives its sandboxes back to their class
// (recycled in place when the class recycles and wants them, removed
// otherwise): nobody asks for this checkpoint any more, but its class may
// still be asked for.
func (st *stage) stop() { st.end(st.pool.Return) }

// end ends the stage and hands each of its sandboxes to giveBack.
func (st *stage) end(giveBack func(sandbox.Sandbox)) {
	st.cancel()
	<-st.done
	st.mu.Lock()
	ready := st.ready
	st.ready = nil
	st.mu.Unlock()
	for _, s := range ready {
		giveBack(s.sb)
	}
}

// poke wakes the stage's loop without blocking.
func (st *stage) poke() {
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

// takeStaged returns a staged sandbox at the checkpoint a reset to k of
// traj would take from the cache, with its entry, or nil. A sandbox whose
// last proof of life is older than recheck (the background pings fell
// behind) is checked here.
func (r *Resetter) takeStaged(ctx context.Context, tp taskPool, tk *task.Task, traj *trajectory.Trajectory, k int) (sandbox.Sandbox, *prefix.Entry) {
	st := r.stageFor(tp, tk, traj, k)
	if st == nil {
		return nil, nil
	}
	c := r.cfg.cache
	for {
		s := st.take()
		if s == nil {
			return nil, nil
		}
		st.poke()
		if (time.Since(s.proved) < st.times.recheck || alive(ctx, s.sb)) && c.Hit(st.entry) {
			st.pool.Mark(s.sb, capacity.InUse)
			return s.sb, st.entry
		}
		st.pool.Discard(s.sb)
	}
}

// stageFor is the task's stage when it holds the entry a reset of tk at k
// would take from the cache, nil otherwise.
func (r *Resetter) stageFor(tp taskPool, tk *task.Task, traj *trajectory.Trajectory, k int) *stage {
	c := r.cfg.cache
	if c == nil || r.cfg.staging == 0 || k == 0 || tp.digest == "" {
		return nil
	}
	r.mu.Lock()
	st := r.stages[tp.key]
	r.mu.Unlock()
	if st == nil || c.Plan(tk.ID, tp.digest, st.entry.Key.Image, traj, k).Key != st.entry.Key {
		return nil
	}
	return st
}

// alive checks that a staged sandbox still answers (it may have died
// while it waited).
func alive(ctx context.Context, sb sandbox.Sandbox) bool {
	res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: ":", Timeout: 5 * time.Second})
	return err == nil && res.ExitCode == 0 && !res.TimedOut && !res.SessionLost
}

// fromStaged continues a staged sandbox's replay at the entry's J to k.
func (r *Resetter) fromStaged(ctx context.Context, e *prefix.Entry, sb sandbox.Sandbox, tk *task.Task, traj *trajectory.Trajectory, k int, ep *Episode) (*replayer.Run, error) {
	ep.Cache, ep.Cached, ep.Staged = CacheHit, e.Key.J, true
	cached := &replayer.Report{Task: tk.ID, Trajectory: traj.ID, From: 0, To: e.Key.J, T: traj.Len(), Steps: e.Steps}
	return r.live(ctx, r.rp.StartAt(sb, tk, traj, e.Key.J, e.Vars), k, ep, []*replayer.Report{cached})
}

// stopStages ends every stage and removes their sandboxes (Close).
func (r *Resetter) stopStages() {
	r.mu.Lock()
	stages := r.stages
	r.stages = map[string]*stage{}
	r.mu.Unlock()
	for _, st := range stages {
		st.end(st.pool.Discard) // closing: no recycle to wait for
	}
}

// Staged counts the sandboxes staged and ready, over every task.
func (r *Resetter) Staged() int {
	r.mu.Lock()
	stages := make([]*stage, 0, len(r.stages))
	for _, st := range r.stages {
		stages = append(stages, st)
	}
	r.mu.Unlock()
	n := 0
	for _, st := range stages {
		st.mu.Lock()
		n += len(st.ready)
		st.mu.Unlock()
	}
	return n
}
