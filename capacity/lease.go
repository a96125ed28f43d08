package capacity

import "sync"

// Lease is slots taken together (a group's). Peel one off per sandbox with
// Slot; Close gives back the ones not peeled.
type Lease struct {
	b  *Budget
	mu sync.Mutex
	n  int
}

// Len is how many slots the lease still holds.
func (l *Lease) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

// Slot peels one slot off the lease, nil when it holds none.
func (l *Lease) Slot() *Slot {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == 0 {
		return nil
	}
	l.n--
	return &Slot{b: l.b, state: Reserved}
}

// Close gives back the slots not peeled off. It is idempotent.
func (l *Lease) Close() {
	l.mu.Lock()
	n := l.n
	l.n = 0
	l.mu.Unlock()
	if n > 0 {
		l.b.release(n, Reserved, false)
	}
}

// Slot is one sandbox's place in the budget, from before its creation
// until its removal has ended.
type Slot struct {
	b       *Budget
	mu      sync.Mutex
	state   State
	done    bool
	evicted bool
}

// Mark records what the slot's sandbox is doing now.
func (s *Slot) Mark(st State) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done || s.state == st {
		return
	}
	s.b.move(s.state, st)
	s.state = st
}

// Evicted marks the slot's sandbox as removed to make room for a waiter
// (so the budget does not ask for that room twice) and as Removing.
func (s *Slot) Evicted() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done || s.evicted {
		return
	}
	s.evicted = true
	s.b.evicted(s.state)
	s.state = Removing
}

// Release gives the slot back once its sandbox is gone. It is idempotent.
func (s *Slot) Release() {
	if s == nil {
		return
	}
	s.mu.Lock()
	if s.done {
		s.mu.Unlock()
		return
	}
	s.done = true
	st, ev := s.state, s.evicted
	s.mu.Unlock()
	s.b.release(1, st, ev)
}

// Grow adds n slots to the lease if they are free now, whoever waits in
// line: for a holder that has waited its turn and found, when served,
// that part of what it counted on (idle sandboxes) was taken meanwhile.
// It never waits.
func (l *Lease) Grow(n int) bool {
	if n <= 0 {
		return true
	}
	b := l.b
	b.mu.Lock()
	if b.closed || b.max-b.used < n {
		b.mu.Unlock()
		return false
	}
	b.grantLocked(n)
	b.mu.Unlock()
	l.mu.Lock()
	l.n += n
	l.mu.Unlock()
	return true
}
