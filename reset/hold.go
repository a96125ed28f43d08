package reset

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/rbx-sandbox/rbx/capacity"
	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Hold is a group's members covered at once: idle sandboxes of the class
// claimed for them, and budget slots for the rest, so that a member never
// waits once the group has its hold. A hold is only ever complete: while
// a group waits for room it holds nothing (no sandbox, no slot), so two
// groups can never each hold part of what the other needs — which, with
// the budget full of half-served groups' sandboxes, deadlocked every
// waiter until its deadline. Close gives back what the members did not use.
type Hold struct {
	pool  *pool.Pool
	mu    sync.Mutex
	sbs   []sandbox.Sandbox // claimed idle sandboxes not handed to a member yet
	lease *capacity.Lease
}

// Hold covers n resets of tk at k (a group), waiting in the budget's line
// until ctx ends (an error wrapping capacity.ErrFull). It records the
// group as demand for the class and the checkpoint. Staged sandboxes are
// not counted: a member that gets one leaves its claim for Close.
func (r *Resetter) Hold(ctx context.Context, tk *task.Task, traj *trajectory.Trajectory, k, n int) (*Hold, error) {
	if b := r.Budget(); b != nil && n > b.Max() {
		// Never satisfiable, however many sandboxes come back: not a
		// wait, and not worth a retry.
		return nil, &Error{Task: tk.ID, K: k, Err: fmt.Errorf("hold %d sandboxes: %w: expected 1 to %d (--max-sandboxes)", n, capacity.ErrTooLarge, b.Max())}
	}
	tp, err := r.taskPool(tk)
	if err != nil {
		return nil, &Error{Task: tk.ID, K: k, Err: err}
	}
	r.demand.observe(tp.pool.Key(), tk.ID, k, n)
	var deadline time.Time
	if r.cfg.wait > 0 {
		deadline = time.Now().Add(r.cfg.wait)
	}
	p := tp.pool
	for {
		if h := r.holdNow(ctx, p, n); h != nil {
			return h, nil
		}
		// Wait for room for what the idle sandboxes do not cover, holding
		// nothing; a sandbox of the class coming back wakes us to count again.
		arrived := p.Arrival()
		need := n - p.Available()
		if need <= 0 {
			continue
		}
		lease, err := p.WaitRoomAfter(ctx, need, deadline, arrived)
		if err != nil {
			return nil, &Error{Task: tk.ID, K: k, Err: err}
		}
		if lease == nil {
			continue
		}
		h := &Hold{pool: p, lease: lease}
		h.claim(ctx, n-need)
		if lease.Grow(n - need - len(h.sbs)) { // idle ones taken meanwhile: free slots instead
			return h, nil
		}
		h.Close()
	}
}

// holdNow completes a hold at once from idle sandboxes and free slots
// (none while others wait in line), or returns nil holding nothing.
func (r *Resetter) holdNow(ctx context.Context, p *pool.Pool, n int) *Hold {
	idle := min(p.Available(), n)
	if idle == n {
		h := &Hold{pool: p}
		if h.claim(ctx, n); len(h.sbs) == n {
			return h
		}
		h.Close()
		return nil
	}
	lease, ok := r.budget.TryAcquire(n - idle)
	if !ok {
		return nil
	}
	h := &Hold{pool: p, lease: lease}
	h.claim(ctx, idle)
	if lease.Grow(idle - len(h.sbs)) {
		return h
	}
	h.Close()
	return nil
}

// claim takes up to n idle sandboxes of the pool for the members.
func (h *Hold) claim(ctx context.Context, n int) {
	for len(h.sbs) < n {
		sb := h.pool.Take(ctx)
		if sb == nil {
			return
		}
		h.sbs = append(h.sbs, sb)
	}
}

// Close gives back what the members did not use: claimed sandboxes go
// back idle untouched, slots back to the budget. It is idempotent and
// accepts nil.
func (h *Hold) Close() {
	if h == nil {
		return
	}
	h.mu.Lock()
	sbs := h.sbs
	h.sbs = nil
	h.mu.Unlock()
	for _, sb := range sbs {
		h.pool.Unclaim(sb)
	}
	if h.lease != nil {
		h.lease.Close()
	}
}

// acquire takes a sandbox of p for a member: a claimed one, else one
// created with a slot of the hold; past the group's size (a member's
// retry) one that waits in line itself.
func (h *Hold) acquire(ctx context.Context, p *pool.Pool) (sandbox.Sandbox, error) {
	if h != nil && h.pool == p {
		h.mu.Lock()
		if n := len(h.sbs); n > 0 {
			sb := h.sbs[n-1]
			h.sbs = h.sbs[:n-1]
			h.mu.Unlock()
			return sb, nil
		}
		h.mu.Unlock()
		if h.lease != nil {
			if slot := h.lease.Slot(); slot != nil {
				return p.AcquireWith(ctx, slot)
			}
		}
	}
	return p.Acquire(ctx)
}
