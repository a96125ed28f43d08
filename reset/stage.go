package reset

import (
	"context"
	"fmt"
	"time"

	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/prefix"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// WithStaging keeps up to n sandboxes per task restored, in the
// background, to the prefix cache entry the task's last reset used, so
// that the next resets at that checkpoint (a group, a curriculum that
// stays at k) take one ready instead of restoring on their path (default
// 0: none). Staged sandboxes come from the task's pool, which refills
// behind them: a task holds up to its pool size plus n sandboxes. They
// are dropped when a reset uses another entry, when the entry outlives
// the cache's age bound, and at Close. Needs WithPrefixCache.
func WithStaging(n int) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("staging %d: expected ≥ 0", n)
		}
		c.staging = n
		return nil
	}
}

// staged is a sandbox restored to a stage's entry, and when (the restore's
// check proved it alive then).
type staged struct {
	sb sandbox.Sandbox
	at time.Time
}

// recheck is how long a staged sandbox is handed out without another
// liveness check: its restore ended with a round trip through its shell,
// and an idle container does not die by itself; one parked longer is
// checked as the pool checks its idle sandboxes.
const recheck = 30 * time.Second

// stage holds sandboxes of one task restored to one entry.
type stage struct {
	entry  *prefix.Entry
	ready  chan staged
	wake   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
	pool   *pool.Pool
}

// stageEntry makes e the entry the task's stage restores sandboxes to.
func (r *Resetter) stageEntry(tp taskPool, e *prefix.Entry) {
	if r.cfg.staging == 0 || e == nil {
		return
	}
	r.mu.Lock()
	old := r.stages[tp.key]
	if r.closed || (old != nil && old.entry == e) {
		r.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	st := &stage{entry: e, ready: make(chan staged, r.cfg.staging), wake: make(chan struct{}, 1),
		cancel: cancel, done: make(chan struct{}), pool: tp.pool}
	r.stages[tp.key] = st
	r.mu.Unlock()
	if old != nil {
		go old.stop()
	}
	go r.runStage(ctx, st)
}

// runStage keeps st's sandboxes topped up until it is stopped.
func (r *Resetter) runStage(ctx context.Context, st *stage) {
	defer close(st.done)
	c := r.cfg.cache
	for ctx.Err() == nil {
		if len(st.ready) >= cap(st.ready) || !c.Fresh(st.entry) {
			select {
			case <-st.wake:
			case <-ctx.Done():
			case <-time.After(time.Second): // the entry may age out
			}
			continue
		}
		sb, err := st.pool.Acquire(ctx)
		if err != nil {
			return
		}
		if err := c.Apply(ctx, st.entry, sb); err != nil {
			st.pool.Discard(sb)
			if prefix.IsApplyError(err) || ctx.Err() != nil {
				return
			}
			r.cfg.log.Warn("prefix cache: staging a sandbox", "sandbox", sb.ID(), "err", err)
			time.Sleep(time.Second)
			continue
		}
		select {
		case st.ready <- staged{sb: sb, at: time.Now()}:
		default:
			st.pool.Discard(sb)
		}
	}
}

// stop ends the stage and removes its sandboxes.
func (st *stage) stop() {
	st.cancel()
	<-st.done
	for {
		select {
		case s := <-st.ready:
			st.pool.Discard(s.sb)
		default:
			return
		}
	}
}

// takeStaged returns a staged sandbox at the checkpoint a reset to k of
// traj would take from the cache, with its entry, or nil.
func (r *Resetter) takeStaged(ctx context.Context, tp taskPool, tk *task.Task, traj *trajectory.Trajectory, k int) (sandbox.Sandbox, *prefix.Entry) {
	c := r.cfg.cache
	if c == nil || r.cfg.staging == 0 || k == 0 || tp.digest == "" {
		return nil, nil
	}
	r.mu.Lock()
	st := r.stages[tp.key]
	r.mu.Unlock()
	if st == nil || c.Plan(tk.ID, tp.digest, st.entry.Key.Image, traj, k).Key != st.entry.Key {
		return nil, nil
	}
	for {
		select {
		case s := <-st.ready:
			select {
			case st.wake <- struct{}{}:
			default:
			}
			if (time.Since(s.at) < recheck || alive(ctx, s.sb)) && c.Hit(st.entry) {
				return s.sb, st.entry
			}
			st.pool.Discard(s.sb)
		default:
			return nil, nil
		}
	}
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
		st.stop()
	}
}

// Staged counts the sandboxes staged and ready, over every task.
func (r *Resetter) Staged() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, st := range r.stages {
		n += len(st.ready)
	}
	return n
}
