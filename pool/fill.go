package pool

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rbx-sandbox/rbx/capacity"
	"github.com/rbx-sandbox/rbx/sandbox"
)

// fill keeps idle + in-flight creations at the target size until the pool
// closes, with slots nobody waits for: when the budget has none, it waits
// for one to come back. After a failed creation (engine down, image
// missing) it backs off exponentially up to backoffMax, so a broken engine
// is not hammered and is picked up again when it comes back.
func (p *Pool) fill(ctx context.Context) {
	defer close(p.done)
	var backoff time.Duration
	results := make(chan error, 64)
	var inflight sync.WaitGroup
	for {
		var full <-chan struct{}
		for backoff == 0 && p.deficit() > 0 {
			lease, ok := p.budget.TryAcquire(1)
			if !ok {
				full = p.budget.Changed()
				break
			}
			p.stats.creating.Add(1)
			inflight.Add(1)
			go func() {
				defer inflight.Done()
				results <- p.createIdle(ctx, lease.Slot())
			}()
		}
		var retry <-chan time.Time
		if backoff > 0 {
			retry = time.After(backoff)
		}
		select {
		case <-ctx.Done():
			// The creations under way still report: read them while
			// waiting, or those beyond the channel's buffer would block
			// their send and this wait, and Close, forever (a server
			// stopped while filling a large budget never exited).
			go func() {
				inflight.Wait()
				close(results)
			}()
			for range results {
			}
			return
		case <-p.wake:
		case <-full:
		case <-retry:
			backoff = 0
		case err := <-results:
			switch {
			case err == nil:
				backoff = 0
			case backoff == 0:
				backoff = 100 * time.Millisecond
			default:
				backoff = min(2*backoff, p.cfg.backoffMax)
			}
		}
	}
}

// deficit is how many sandboxes the filler should start creating now. A
// recycling pool counts the sandboxes handed out as idle to be: they come
// back recycled, and a fresh one made meanwhile would push them out.
func (p *Pool) deficit() int {
	p.mu.Lock()
	have := len(p.idle) + p.rc.active
	if p.rc.on {
		have += len(p.out)
	}
	p.mu.Unlock()
	return int(p.size.Load()) - have - int(p.stats.creating.Load())
}

// createIdle creates one sandbox with slot and parks it idle.
func (p *Pool) createIdle(ctx context.Context, slot *capacity.Slot) error {
	defer p.stats.creating.Add(-1)
	m, err := p.create(ctx, slot, nil)
	if err != nil {
		slot.Release()
		if ctx.Err() == nil {
			p.cfg.log.Warn("pool: create sandbox", "pool", p.tmpl.Key, "err", err)
		}
		return err
	}
	p.park(m)
	return nil
}

// park makes m idle, or removes it when the pool is over its target or
// closed.
func (p *Pool) park(m *member) {
	p.mu.Lock()
	// Beyond the warm target it is kept only for resets of the class in
	// its line, waiting for room or for a creation (they take it).
	if p.closed.Load() || (len(p.idle) >= int(p.size.Load()) && p.wantingLocked()+p.Waiting()+int(p.pending.Load()) == 0) {
		p.mu.Unlock()
		p.remove(m)
		return
	}
	p.idleLocked(m)
	p.mu.Unlock()
}

// idleLocked makes m idle and wakes the class's waiters (callers hold mu).
func (p *Pool) idleLocked(m *member) {
	m.slot.Mark(capacity.Idle)
	p.idle = append(p.idle, m)
	p.announceLocked()
}

// create makes and prepares one sandbox holding slot, removing it if
// preparing fails. The slot stays the caller's on failure.
//
// For an acquisition (t not nil), waiting for the pool's and the engine's
// permits gives up with errArrived as soon as a sandbox it may take is
// parked idle: the caller takes it instead of creating one more. With the
// permits, t is creating: the idle sandboxes go to the waiters behind it.
func (p *Pool) create(ctx context.Context, slot *capacity.Slot, t *ticket) (*member, error) {
	release, err := p.permits(ctx, t)
	if err != nil {
		return nil, err
	}
	defer release()
	p.setCreating(t, true)
	defer p.setCreating(t, false)
	slot.Mark(capacity.Creating)
	start := time.Now()
	tmpl := p.tmpl
	if tmpl.Spec.Recycle && p.cfg.recycle != nil && !p.Recycling() {
		// Recycling was measured dearer here: a sandbox that will only be
		// removed need not pay for its fresh listing.
		tmpl.Spec.Recycle = false
	}
	sb, err := tmpl.Create(ctx, p.rt)
	if err != nil {
		slot.Mark(capacity.Reserved)
		p.stats.fail(err)
		return nil, fmt.Errorf("pool %s: %w", p.tmpl.Key, err)
	}
	p.stats.created.Add(1)
	p.stats.createNanos.Add(int64(time.Since(start)))
	if rp, ok := sb.(sandbox.RecyclePreparer); ok && tmpl.Spec.Recycle {
		p.stats.observePrepare(rp.RecyclePrepared())
	}
	if p.stats.returned.Load() > 0 {
		p.stats.createdReturning.Add(1)
	}
	return &member{sb: sb, slot: slot}, nil
}

// trim removes the idle sandboxes beyond the target, oldest first.
func (p *Pool) trim() {
	p.mu.Lock()
	n := len(p.idle) - int(p.size.Load())
	var extra []*member
	if n > 0 {
		extra = append(extra, p.idle[:n]...)
		p.idle = append(p.idle[:0:0], p.idle[n:]...)
	}
	p.mu.Unlock()
	for _, m := range extra {
		p.remove(m)
	}
}

// Idle is how many sandboxes are idle now.
func (p *Pool) Idle() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle)
}

// Evict removes up to n idle sandboxes, newest first (the oldest are
// handed out first), to make room in the
// budget (their slots are marked evicted), and returns how many.
func (p *Pool) Evict(n int) int {
	p.mu.Lock()
	n = min(n, len(p.idle))
	victims := append([]*member(nil), p.idle[len(p.idle)-n:]...)
	p.idle = p.idle[:len(p.idle)-n]
	p.mu.Unlock()
	for _, m := range victims {
		m.slot.Evicted()
		p.stats.evicted.Add(1)
		p.remove(m)
	}
	return n
}

// Close stops refilling, removes the idle sandboxes and waits for pending
// removals and recycles. Sandboxes handed out and not yet given back are
// the caller's.
func (p *Pool) Close(ctx context.Context) error {
	if !p.closed.CompareAndSwap(false, true) {
		return nil
	}
	p.stop()
	<-p.done
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	var errs []error
	for _, m := range idle {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		if err := m.sb.Remove(rctx); err != nil && !errors.Is(err, sandbox.ErrNotFound) {
			errs = append(errs, err)
		}
		cancel()
		m.slot.Release()
		p.stats.discarded.Add(1)
	}
	p.bgWG.Wait()
	return errors.Join(errs...)
}

// errArrived: a sandbox of the class was parked while a creation waited.
var errArrived = errors.New("a sandbox of the class came back")

// permits takes the pool's creation permit and the engine's; for an
// acquisition (t not nil) they are given up when a sandbox it may take is
// parked meanwhile (errArrived).
func (p *Pool) permits(ctx context.Context, t *ticket) (release func(), err error) {
	var arrived <-chan struct{}
	if t != nil {
		arrived = p.arrival()
		p.pending.Add(1)
		defer p.pending.Add(-1)
		if p.available(t) > 0 {
			return nil, errArrived
		}
	}
	select {
	case p.sem <- struct{}{}:
	case <-arrived:
		return nil, errArrived
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-arrived:
			cancel()
		case <-wctx.Done():
		}
	}()
	rel, err := p.budget.Engine(wctx)
	if err != nil {
		<-p.sem
		if ctx.Err() == nil {
			return nil, errArrived
		}
		return nil, err
	}
	return func() { rel(); <-p.sem }, nil
}
