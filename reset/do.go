package reset

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/prefix"
	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Error is a reset that failed: Attempts tells how many sandboxes were
// tried; Err is the last failure (a *replayer.StepError for a divergence,
// a sandbox error otherwise).
type Error struct {
	Task     string
	K        int
	Attempts int
	Err      error
}

func (e *Error) Error() string {
	return fmt.Sprintf("reset %s to k=%d (attempt %d): %v", e.Task, e.K, e.Attempts, e.Err)
}

// Unwrap exposes the last failure.
func (e *Error) Unwrap() error { return e.Err }

// Episode is a sandbox reset to checkpoint K of a trajectory: the sandbox,
// the live replay run that brought it there (its variables, its next step)
// and that run's report. Continue it with Run — To for the reference
// suffix, Do for live actions — and give it back with Resetter.Release.
type Episode struct {
	Sandbox sandbox.Sandbox
	Run     *replayer.Run
	Report  *replayer.Report
	K       int
	// Cached is how many steps of [0, K) came from the prefix cache (their
	// results in Report are those of the live replay the state was
	// captured from); Cache says how the cache served this reset.
	Cached int
	Cache  CacheUse
	// Staged: the sandbox was restored ahead of the reset (WithStaging).
	Staged bool
	// Timings split the reset's time.
	Timings Timings
}

// CacheUse is how a reset used the prefix cache.
type CacheUse string

// Cache uses.
const (
	CacheOff    CacheUse = ""       // no cache, or k = 0
	CacheHit    CacheUse = "hit"    // state restored, [Cached, K) replayed live
	CacheBuilt  CacheUse = "built"  // [0, Cached) replayed live and captured for later resets
	CacheBypass CacheUse = "bypass" // nothing reusable: replayed live
)

// Timings say where a reset's time went (summed over attempts).
type Timings struct {
	// PoolWait is the time Acquire took; Files staging the task's files
	// into the class's sandbox; Apply restoring a cached state;
	// Replay replaying steps live; Build probing and capturing a state for
	// the cache (on a miss, inside the replay of its prefix).
	PoolWait, Files, Apply, Replay, Build time.Duration
}

// Reset returns an episode at checkpoint k of traj: a warm sandbox of the
// task's pool with steps [0, k) replayed (k is checked here, once) — with
// a prefix cache, the reusable part [0, j) restored instead and [j, k)
// replayed, on a sandbox staged at j when there is one; a restore that
// does not read back as captured is retried live on a fresh sandbox. The
// caller owns the sandbox and gives it back with Release. On failure
// nothing is left behind; the episode returned with the error holds only
// the report of the last attempt, if a replay ran.
func (r *Resetter) Reset(ctx context.Context, tk *task.Task, traj *trajectory.Trajectory, k int) (*Episode, error) {
	return r.ResetHeld(ctx, nil, tk, traj, k)
}

// ResetHeld is Reset for a member of a group that Hold made room for (h
// nil: none): its sandbox is a staged or idle one, or one created with a
// slot of h, before it waits in the budget's line itself.
func (r *Resetter) ResetHeld(ctx context.Context, h *Hold, tk *task.Task, traj *trajectory.Trajectory, k int) (*Episode, error) {
	ep := &Episode{K: k}
	if err := replayer.CheckCheckpoint(traj, k); err != nil {
		return ep, &Error{Task: tk.ID, K: k, Err: err}
	}
	tp, err := r.taskPool(tk)
	if err != nil {
		return ep, &Error{Task: tk.ID, K: k, Err: err}
	}
	if h == nil {
		r.demand.observe(tp.pool.Key(), tk.ID, k, 1)
	}
	p := tp.pool
	ctx, cancel := context.WithTimeout(ctx, tk.EpisodeTimeout())
	defer cancel()
	applyRetried := false
	for attempt := 1; ; attempt++ {
		start := time.Now()
		var run *replayer.Run
		ep.Cache, ep.Cached, ep.Staged = CacheOff, 0, false // this attempt's
		sb, staged := r.takeStaged(ctx, tp, tk, traj, k)
		if sb != nil {
			ep.Timings.PoolWait += time.Since(start)
			run, err = r.fromStaged(ctx, staged, sb, tk, traj, k, ep)
		} else {
			var aerr error
			sb, aerr = h.acquire(ctx, p)
			ep.Timings.PoolWait += time.Since(start)
			if aerr != nil {
				return ep, &Error{Task: tk.ID, K: k, Attempts: attempt, Err: aerr}
			}
			fstart := time.Now()
			if err = provision.Prepare(ctx, sb, tk); err == nil {
				ep.Timings.Files += time.Since(fstart)
				run, err = r.replay(ctx, tp, sb, tk, traj, k, ep)
			}
		}
		if err == nil {
			r.mu.Lock()
			if r.closed { // closed while we replayed: do not hand out
				r.mu.Unlock()
				p.Discard(sb)
				return ep, &Error{Task: tk.ID, K: k, Attempts: attempt, Err: pool.ErrClosed}
			}
			r.out[sb.ID()] = handed{sb: sb, pool: p}
			r.mu.Unlock()
			ep.Sandbox, ep.Run = sb, run
			return ep, nil
		}
		p.Discard(sb)
		if prefix.IsApplyError(err) && !applyRetried && ctx.Err() == nil {
			// The entry is dropped: the next attempt replays live.
			applyRetried = true
			attempt--
			continue
		}
		if !Retryable(err) || attempt > r.cfg.retries || ctx.Err() != nil {
			return ep, &Error{Task: tk.ID, K: k, Attempts: attempt, Err: err}
		}
		r.cfg.log.Warn("reset: retrying on a fresh sandbox", "task", tk.ID, "k", k, "attempt", attempt, "err", err)
	}
}

// Release gives a sandbox from Reset back: recycled in place for its
// class when the class recycles and wants it warm, removed otherwise.
func (r *Resetter) Release(sb sandbox.Sandbox) {
	if p := r.takeBack(sb); p != nil {
		p.Return(sb)
	}
}

// Discard removes a sandbox from Reset, never recycling it: its state is
// not trusted (it failed, froze or was found dead under an episode).
func (r *Resetter) Discard(sb sandbox.Sandbox) {
	if p := r.takeBack(sb); p != nil {
		p.Discard(sb)
	}
}

// DiscardNow is Discard that returns once the sandbox is removed (or
// ctx ended), with the removal's error.
func (r *Resetter) DiscardNow(ctx context.Context, sb sandbox.Sandbox) error {
	if p := r.takeBack(sb); p != nil {
		return p.DiscardNow(ctx, sb)
	}
	return nil
}

// takeBack forgets a sandbox Reset handed out and returns its pool (nil
// when it is not one of ours, or was given back already).
func (r *Resetter) takeBack(sb sandbox.Sandbox) *pool.Pool {
	if sb == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.out[sb.ID()]
	if !ok {
		return nil
	}
	delete(r.out, sb.ID())
	return h.pool
}

// Retryable reports whether err is the infrastructure's fault (the sandbox
// died, the engine went away), so that the same reset may succeed on a fresh
// sandbox. A divergence or an invalid checkpoint is not.
func Retryable(err error) bool {
	if !reason.IsInfra(err) {
		return false
	}
	_, stepFailed := reason.Of(err) // a step the sandbox failed under
	return errors.Is(err, sandbox.ErrSandboxGone) || errors.Is(err, sandbox.ErrUnavailable) ||
		errors.Is(err, sandbox.ErrNotFound) || stepFailed
}
