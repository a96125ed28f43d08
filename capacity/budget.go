package capacity

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// State is what a slot's sandbox is doing, for the budget's accounting.
type State string

// Slot states. A slot starts Reserved (taken, no sandbox yet).
const (
	Reserved  State = "reserved"  // taken for a sandbox about to be created
	Creating  State = "creating"  // the engine is creating it
	Idle      State = "idle"      // warm in a pool, never handed out or recycled
	Staged    State = "staged"    // restored by the prefix cache ahead of a reset
	InUse     State = "in_use"    // handed out: an episode, a probe, a scratch replay
	Recycling State = "recycling" // being returned to its fresh state in place
	Removing  State = "removing"  // the engine is removing it
)

// States lists every state, in the order reports show them.
var States = []State{Reserved, Creating, Idle, Staged, InUse, Recycling, Removing}

// Evictor frees idle sandboxes when a waiter needs room: it starts the
// removal of up to n of them, calling Slot.Evicted on each (their slots
// come back when the removals end), and returns how many it started. It
// must not block on the budget.
type Evictor func(n int) int

// Budget bounds the live sandboxes of a process. It is safe for
// concurrent use.
type Budget struct {
	mu       sync.Mutex
	max      int
	used     int
	peak     int
	states   map[State]int
	queue    list.List // of *waiter, first in line at the front
	evictors map[int]Evictor
	nextEv   int
	evicting int // removals started by evictions, not yet released
	waitSum  time.Duration
	waits    int64
	timeouts int64
	closed   bool
	done     chan struct{} // closed by Close
	ops      chan struct{} // engine operations under way (Engine)
	changed  chan struct{} // closed and replaced on every release
}

type waiter struct {
	n            int
	who          string        // who waits (a sandbox class), for Head
	ready        chan struct{} // closed when granted
	patientUntil time.Time     // see Patient; zero: never patient
}

// New returns a budget of max slots (max ≥ 1).
func New(max int) (*Budget, error) {
	if max < 1 {
		return nil, fmt.Errorf("sandbox budget %d: expected ≥ 1", max)
	}
	return &Budget{max: max, states: map[State]int{}, evictors: map[int]Evictor{}, changed: make(chan struct{}), done: make(chan struct{}),
		ops: make(chan struct{}, DefaultEngineOps())}, nil
}

// AddEvictor adds what frees idle sandboxes when a waiter needs room
// (every holder of idle sandboxes sharing the budget adds its own; they
// are asked in turn until the room is found). The function returned
// removes it.
func (b *Budget) AddEvictor(e Evictor) (remove func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	id := b.nextEv
	b.nextEv++
	b.evictors[id] = e
	return func() {
		b.mu.Lock()
		delete(b.evictors, id)
		b.mu.Unlock()
	}
}

// Max is the budget's size.
func (b *Budget) Max() int { return b.max }

// Acquire takes n slots (1 ≤ n ≤ Max) together, waiting in line until
// they are free or ctx ends; an error then wraps ErrFull and ctx's error.
// While it waits it asks the evictor to free idle sandboxes.
func (b *Budget) Acquire(ctx context.Context, n int) (*Lease, error) {
	return b.AcquireFor(ctx, n, "")
}

// AcquireFor is Acquire on behalf of who (a sandbox class), which Head
// reports while it waits at the front of the line.
func (b *Budget) AcquireFor(ctx context.Context, n int, who string, opts ...WaitOption) (*Lease, error) {
	if n < 1 || n > b.max {
		return nil, fmt.Errorf("acquire %d sandbox slots: %w: expected 1 to %d (--max-sandboxes)", n, ErrTooLarge, b.max)
	}
	start := time.Now()
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, ErrClosed
	}
	if b.queue.Len() == 0 && b.max-b.used >= n {
		l := b.grantLocked(n)
		b.mu.Unlock()
		return l, nil
	}
	w := &waiter{n: n, who: who, ready: make(chan struct{})}
	for _, o := range opts {
		o(w)
	}
	el := b.queue.PushBack(w)
	evict := b.evictionLocked()
	b.mu.Unlock()
	evict()
	if !w.patientUntil.IsZero() {
		t := time.AfterFunc(time.Until(w.patientUntil), b.patienceEnded)
		defer t.Stop()
	}
	select {
	case <-w.ready:
		b.observeWait(time.Since(start), false)
		return &Lease{b: b, n: n}, nil
	case <-ctx.Done():
	case <-b.done:
	}
	b.mu.Lock()
	select {
	case <-w.ready: // granted meanwhile: give the slots back
		b.mu.Unlock()
		(&Lease{b: b, n: n}).Close()
	default:
		b.queue.Remove(el)
		b.serveLocked() // the next in line may fit now
		b.mu.Unlock()
	}
	// Only a deadline is a time-out: a waiter that gave up its place (a
	// sandbox of its class came back, its client left) is not.
	b.observeWait(time.Since(start), errors.Is(ctx.Err(), context.DeadlineExceeded))
	if ctx.Err() == nil {
		return nil, ErrClosed
	}
	return nil, fmt.Errorf("wait %v for %d of %d sandbox slots: %w: %w", time.Since(start).Round(time.Millisecond), n, b.max, ErrFull, ctx.Err())
}

// Head reports who waits at the front of the line (as AcquireFor named
// it), and whether anyone waits at all. A sandbox coming back goes to its
// class's waiters only when that class is at the front: slots are served
// in order, a class with steady demand cannot starve another.
func (b *Budget) Head() (who string, waiting bool) {
	who, _, waiting = b.Front()
	return who, waiting
}

// TryAcquire takes n slots only if they are free and nobody waits:
// background work (warming, staging) never delays demand.
func (b *Budget) TryAcquire(n int) (*Lease, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || b.queue.Len() > 0 || b.max-b.used < n || n < 1 {
		return nil, false
	}
	return b.grantLocked(n), true
}

func (b *Budget) grantLocked(n int) *Lease {
	b.used += n
	b.states[Reserved] += n
	b.peak = max(b.peak, b.used)
	return &Lease{b: b, n: n}
}

// serveLocked grants the waiters at the front of the line that fit.
func (b *Budget) serveLocked() {
	for el := b.queue.Front(); el != nil; el = b.queue.Front() {
		w := el.Value.(*waiter)
		if b.max-b.used < w.n {
			return
		}
		b.queue.Remove(el)
		b.used += w.n
		b.states[Reserved] += w.n
		b.peak = max(b.peak, b.used)
		close(w.ready)
	}
}

// evictionLocked returns the eviction the line needs now: room for every
// waiter but the patient ones beyond what is free and what removals under
// way will free.
func (b *Budget) evictionLocked() func() {
	need := -(b.max - b.used) - b.evicting
	now := time.Now()
	for el := b.queue.Front(); el != nil; el = el.Next() {
		if w := el.Value.(*waiter); !w.patient(now) {
			need += w.n
		}
	}
	if need <= 0 || len(b.evictors) == 0 {
		return func() {}
	}
	evictors := make([]Evictor, 0, len(b.evictors))
	for _, e := range b.evictors {
		evictors = append(evictors, e)
	}
	return func() {
		for _, e := range evictors {
			if need -= e(need); need <= 0 {
				return
			}
		}
	}
}

func (b *Budget) observeWait(d time.Duration, timedOut bool) {
	b.mu.Lock()
	b.waits++
	b.waitSum += d
	if timedOut {
		b.timeouts++
	}
	b.mu.Unlock()
}

// release returns n slots held in state st; evicted says they were freed
// by an eviction.
func (b *Budget) release(n int, st State, evicted bool) {
	b.mu.Lock()
	b.used -= n
	b.states[st] -= n
	if evicted {
		b.evicting = max(0, b.evicting-n)
	}
	b.serveLocked()
	evict := b.evictionLocked()
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
	evict()
}

// evicted accounts one slot whose sandbox an eviction is removing.
func (b *Budget) evicted(from State) {
	b.mu.Lock()
	b.evicting++
	b.states[from]--
	b.states[Removing]++
	b.mu.Unlock()
}

// move accounts one slot from state from to state to.
func (b *Budget) move(from, to State) {
	b.mu.Lock()
	b.states[from]--
	b.states[to]++
	b.mu.Unlock()
}

// Changed is closed at the next release of a slot (waiting for room
// without taking a place in line: a pool that shrinks, a stage that waits).
func (b *Budget) Changed() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.changed
}

// Close refuses new acquisitions and fails the waiters' wait at once.
func (b *Budget) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed = true
		close(b.done)
	}
}
