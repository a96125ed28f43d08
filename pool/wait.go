package pool

import (
	"context"
	"fmt"
	"time"

	"github.com/rbx-sandbox/rbx/capacity"
)

// arrival is closed at the next sandbox the pool parks idle.
func (p *Pool) arrival() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.arrive
}

// announce wakes the waiters of the pool's class (callers hold mu).
func (p *Pool) announceLocked() {
	close(p.arrive)
	p.arrive = make(chan struct{})
}

// Waiting is how many acquisitions of this class wait in the budget's
// line now: the evictor spares the idle sandboxes of such a class first,
// they are about to be handed out.
func (p *Pool) Waiting() int { return int(p.waiting.Load()) }

// WaitRoom waits in the budget's line for n slots for this class, until
// deadline (zero: none) or ctx ends; it gives its place up and returns
// nil, nil as soon as a sandbox of the class is parked idle, so that the
// caller takes it instead of making room by evicting another class's.
func (p *Pool) WaitRoom(ctx context.Context, n int, deadline time.Time) (*capacity.Lease, error) {
	return p.waitRoomFor(ctx, nil, n, deadline)
}

// waitRoomFor is WaitRoom for the acquisition holding t: only a sandbox it
// may take (available) ends its wait.
func (p *Pool) waitRoomFor(ctx context.Context, t *ticket, n int, deadline time.Time) (*capacity.Lease, error) {
	if lease, ok := p.budget.TryAcquire(n); ok {
		return lease, nil
	}
	arrived := p.arrival()
	if p.available(t) > 0 {
		return nil, nil
	}
	return p.waitRoom(ctx, n, deadline, arrived)
}

// Arrival returns what closes at the next sandbox parked idle (WaitRoomAfter).
func (p *Pool) Arrival() <-chan struct{} { return p.arrival() }

// WaitRoomAfter is WaitRoom for a caller that has just given sandboxes
// back itself (Unclaim): it gives its place up only at a sandbox parked
// after arrived was taken (Arrival), not at the idle ones it left.
func (p *Pool) WaitRoomAfter(ctx context.Context, n int, deadline time.Time, arrived <-chan struct{}) (*capacity.Lease, error) {
	return p.waitRoom(ctx, n, deadline, arrived)
}

func (p *Pool) waitRoom(ctx context.Context, n int, deadline time.Time, arrived <-chan struct{}) (*capacity.Lease, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if !deadline.IsZero() {
		var c2 context.CancelFunc
		wctx, c2 = context.WithDeadline(wctx, deadline)
		defer c2()
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-arrived:
			cancel()
		case <-stop:
		}
	}()
	p.waiting.Add(1)
	lease, err := p.budget.AcquireFor(wctx, n, p.tmpl.Key, capacity.Patient(p.patience(n)))
	p.waiting.Add(-1)
	if err == nil {
		return lease, nil
	}
	select {
	case <-arrived:
		if ctx.Err() == nil && (deadline.IsZero() || time.Now().Before(deadline)) {
			return nil, nil
		}
	default:
	}
	return nil, fmt.Errorf("room for %d sandboxes of pool %s: %w", n, p.tmpl.Key, err)
}

// maxPatience bounds how long a waiter holds off evictions for its own
// class's sandboxes (see patience).
const maxPatience = 30 * time.Second

// patience is how long a wait for n slots may count on the class's own
// sandboxes coming back (capacity.Patient) rather than have another
// class's idle sandboxes removed for it: a fresh sandbox's cost (a
// creation, and the removal that made room), when the class has at least
// n sandboxes in flight (handed out, or being recycled) that will come
// back or free their slots. Evicting instead makes the other class create
// again at its next demand: with a few classes sharing a full budget, a
// class whose groups were all served would hand its slots over and take
// them back every iteration.
func (p *Pool) patience(n int) time.Duration {
	p.mu.Lock()
	inFlight := int(p.stats.inUse.Load()) + p.rc.active
	p.mu.Unlock()
	if inFlight < n {
		return 0
	}
	st := p.Stats()
	return min(st.CreateMean+st.RemoveMean, maxPatience)
}
