package pool

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rbx-sandbox/rbx/capacity"
	"github.com/rbx-sandbox/rbx/sandbox"
)

// Acquire hands out a ready sandbox, never one handed out and not given
// back: an idle one, or one created now with a slot it waits for in the
// budget's line. Acquisitions of the class are served in the order they
// started (line.go). A creation that fails for the engine's sake is
// retried with backoff until ctx ends; the error then names the last
// failure.
func (p *Pool) Acquire(ctx context.Context) (sandbox.Sandbox, error) {
	start := time.Now()
	var deadline time.Time
	if p.cfg.wait > 0 {
		deadline = start.Add(p.cfg.wait)
	}
	t := p.join()
	defer p.leave(t)
	for {
		if sb := p.take(ctx, t); sb != nil {
			p.stats.observeWait(time.Since(start))
			return sb, nil
		}
		lease, err := p.waitRoomFor(ctx, t, 1, deadline)
		if err != nil {
			p.stats.observeWait(time.Since(start))
			return nil, fmt.Errorf("acquire sandbox from pool %s: %w", p.tmpl.Key, err)
		}
		if lease == nil {
			continue // one of the class's came back: take it
		}
		sb, err := p.acquireWith(ctx, t, lease.Slot())
		p.stats.observeWait(time.Since(start))
		return sb, err
	}
}

// Take hands out an idle sandbox, or nil when none is idle beyond those
// owed to the acquisitions waiting in the class's line (Available). A
// sandbox that fails its liveness check is removed and another one tried.
func (p *Pool) Take(ctx context.Context) sandbox.Sandbox { return p.take(ctx, nil) }

// take is Take for the acquisition holding t (nil: outside the line).
func (p *Pool) take(ctx context.Context, t *ticket) sandbox.Sandbox {
	for {
		if p.closed.Load() {
			return nil
		}
		p.mu.Lock()
		if p.availableLocked(t) == 0 {
			p.mu.Unlock()
			return nil
		}
		m := p.idle[0] // the oldest: a dead one is found before the fresh ones
		p.idle = p.idle[1:]
		p.out[m.sb.ID()] = m
		p.mu.Unlock()
		p.poke()
		if err := p.healthy(ctx, m.sb); err != nil {
			p.cfg.log.Warn("pool: discarding a broken sandbox", "pool", p.tmpl.Key, "sandbox", m.sb.ID(), "err", err)
			p.stats.broken.Add(1)
			p.mu.Lock()
			delete(p.out, m.sb.ID())
			p.mu.Unlock()
			p.remove(m)
			continue
		}
		m.slot.Mark(capacity.InUse)
		p.stats.inUse.Add(1)
		p.stats.acquires.Add(1)
		return m.sb
	}
}

// AcquireWith hands out an idle sandbox and gives slot back, or creates
// one with slot (a slot of a group's lease). It owns slot either way.
func (p *Pool) AcquireWith(ctx context.Context, slot *capacity.Slot) (sandbox.Sandbox, error) {
	t := p.join()
	defer p.leave(t)
	return p.acquireWith(ctx, t, slot)
}

// acquireWith is AcquireWith for the acquisition holding t.
func (p *Pool) acquireWith(ctx context.Context, t *ticket, slot *capacity.Slot) (sandbox.Sandbox, error) {
	if sb := p.take(ctx, t); sb != nil {
		slot.Release()
		return sb, nil
	}
	var backoff time.Duration
	for {
		if p.closed.Load() {
			slot.Release()
			return nil, ErrClosed
		}
		m, err := p.create(ctx, slot, t)
		if errors.Is(err, errArrived) {
			if sb := p.take(ctx, t); sb != nil {
				slot.Release()
				return sb, nil
			}
			continue // taken by another: wait for a permit again
		}
		if err == nil {
			m.slot.Mark(capacity.InUse)
			p.mu.Lock()
			p.out[m.sb.ID()] = m
			p.mu.Unlock()
			p.stats.inUse.Add(1)
			p.stats.acquires.Add(1)
			return m.sb, nil
		}
		if !transient(err) || ctx.Err() != nil {
			slot.Release()
			return nil, fmt.Errorf("acquire sandbox from pool %s: %w", p.tmpl.Key, err)
		}
		backoff = min(max(2*backoff, 100*time.Millisecond), p.cfg.backoffMax)
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			slot.Release()
			return nil, fmt.Errorf("acquire sandbox from pool %s: %w (last create error: %v)", p.tmpl.Key, ctx.Err(), err)
		}
	}
}

// transient reports whether a creation may succeed when tried again.
func transient(err error) bool {
	return !errors.Is(err, sandbox.ErrInvalidSpec) && !errors.Is(err, sandbox.ErrImageMissing) &&
		!errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// healthy checks that an idle sandbox still answers (its container may have
// died while it waited). In exec mode the check would cost a process start,
// so only the session is checked.
func (p *Pool) healthy(ctx context.Context, sb sandbox.Sandbox) error {
	if p.cfg.health == 0 || p.tmpl.Spec.Mode != sandbox.ModeSession {
		return nil
	}
	res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: ":", Timeout: p.cfg.health})
	switch {
	case err != nil:
		return err
	case res.ExitCode != 0 || res.TimedOut || res.SessionLost:
		return fmt.Errorf("liveness check: exit %d, timed out %v, session lost %v", res.ExitCode, res.TimedOut, res.SessionLost)
	}
	return nil
}

// Discard removes a sandbox that was handed out. Removal runs in the
// background so that the caller's next reset does not wait for it; its
// slot comes back when it ends; Close waits for pending removals.
func (p *Pool) Discard(sb sandbox.Sandbox) {
	if m := p.handedBack(sb); m != nil {
		p.remove(m)
	}
}

// DiscardNow is Discard that returns when the removal has ended (or ctx
// has), with its error: for a sandbox whose processes must be gone before
// the caller answers (a frozen one, which must never run a command after
// its episode's answer).
func (p *Pool) DiscardNow(ctx context.Context, sb sandbox.Sandbox) error {
	m := p.handedBack(sb)
	if m == nil {
		return nil
	}
	select {
	case err := <-p.startRemove(m):
		return err
	case <-ctx.Done():
		return fmt.Errorf("remove sandbox %s: %w", sb.ID(), ctx.Err())
	}
}

// Unclaim gives back a sandbox handed out by Take and not used (a group
// that could not be completed gives back what it claimed): it is idle
// again as it was, with no recycle.
func (p *Pool) Unclaim(sb sandbox.Sandbox) {
	m := p.handedBack(sb)
	if m == nil {
		return
	}
	p.mu.Lock()
	if p.closed.Load() {
		p.mu.Unlock()
		p.remove(m)
		return
	}
	p.idleLocked(m)
	p.mu.Unlock()
}

// handedBack forgets a sandbox handed out, nil when it is not the pool's.
func (p *Pool) handedBack(sb sandbox.Sandbox) *member {
	if sb == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.takeBackLocked(sb)
}

// takeBackLocked is handedBack for callers holding mu.
func (p *Pool) takeBackLocked(sb sandbox.Sandbox) *member {
	m := p.out[sb.ID()]
	delete(p.out, sb.ID())
	if m != nil {
		p.stats.inUse.Add(-1)
	}
	return m
}

// remove deletes m's sandbox in the background, within the concurrency
// bound, and releases its slot after.
func (p *Pool) remove(m *member) { p.startRemove(m) }

// startRemove is remove; the channel gets the removal's error (nil once
// the sandbox is gone).
func (p *Pool) startRemove(m *member) <-chan error {
	done := make(chan error, 1)
	p.stats.discarded.Add(1)
	p.stats.removing.Add(1)
	m.slot.Mark(capacity.Removing)
	p.bgWG.Add(1)
	go func() {
		var err error
		defer func() { done <- err }() // last: the slot is back when the caller hears
		defer p.bgWG.Done()
		defer p.poke() // the filler may want a replacement
		defer p.stats.removing.Add(-1)
		defer m.slot.Release()
		p.rmSem <- struct{}{}
		defer func() { <-p.rmSem }()
		rctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		release, err := p.budget.Engine(rctx)
		if err != nil {
			p.cfg.log.Warn("pool: remove sandbox: no engine operation free", "pool", p.tmpl.Key, "sandbox", m.sb.ID(), "err", err)
			return
		}
		defer release()
		start := time.Now()
		if err = m.sb.Remove(rctx); err != nil && !errors.Is(err, sandbox.ErrNotFound) {
			p.cfg.log.Warn("pool: remove sandbox", "pool", p.tmpl.Key, "sandbox", m.sb.ID(), "err", err)
			return
		}
		err = nil
		p.stats.removeNanos.Add(int64(time.Since(start)))
		p.stats.removed.Add(1)
	}()
	return done
}

// poke wakes the filler without blocking.
func (p *Pool) poke() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Mark records what a sandbox handed out is doing now (staged ahead of a
// reset, in use) in the budget's accounting.
func (p *Pool) Mark(sb sandbox.Sandbox, st capacity.State) {
	p.mu.Lock()
	m := p.out[sb.ID()]
	p.mu.Unlock()
	if m != nil {
		m.slot.Mark(st)
	}
}

// DiscardEvicted removes a sandbox handed out (a staged one) to make room
// in the budget for a waiter.
func (p *Pool) DiscardEvicted(sb sandbox.Sandbox) {
	if m := p.handedBack(sb); m != nil {
		m.slot.Evicted()
		p.stats.evicted.Add(1)
		p.remove(m)
	}
}
