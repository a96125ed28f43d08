package pool

// The pool's line: the acquisitions of its class in the order they
// started. A sandbox parked idle wakes every waiter of the class; without
// a line, whichever goroutine ran first took it, and under load (creations
// slow, the filler holding the creation permits) one unlucky reset could
// lose every draw until its deadline — a stalled reset beside a busy pool.
// With it, an idle sandbox goes to the oldest waiter that is not already
// creating its own, then the next: a wait is bounded by the waiters ahead.

// ticket is one acquisition's place in the line.
type ticket struct {
	// creating: the acquisition holds the creation permits and makes its
	// own sandbox; an idle one is not kept for it.
	creating bool
}

// join puts a new acquisition at the back of the line.
func (p *Pool) join() *ticket {
	t := &ticket{}
	p.mu.Lock()
	p.line = append(p.line, t)
	p.mu.Unlock()
	return t
}

// leave takes t out of the line; the waiters behind it may now take the
// idle sandboxes it was entitled to, so they are woken.
func (p *Pool) leave(t *ticket) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, x := range p.line {
		if x == t {
			p.line = append(p.line[:i], p.line[i+1:]...)
			break
		}
	}
	if len(p.idle) > 0 {
		p.announceLocked()
	}
}

// setCreating records whether t makes its own sandbox now (nil t: none).
func (p *Pool) setCreating(t *ticket, on bool) {
	if t == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t.creating = on
	if on && len(p.idle) > 0 {
		p.announceLocked()
	}
}

// availableLocked is how many idle sandboxes t may take: those beyond one
// each for the waiters ahead of it that are not creating (nil t, a caller
// outside the line: behind every waiter). Callers hold mu.
func (p *Pool) availableLocked(t *ticket) int {
	return max(0, len(p.idle)-p.aheadLocked(t))
}

// aheadLocked counts the acquisitions ahead of t in the line (nil t: all
// of them) that are not creating their own sandbox. Callers hold mu.
func (p *Pool) aheadLocked(t *ticket) int {
	n := 0
	for _, x := range p.line {
		if x == t {
			break
		}
		if !x.creating {
			n++
		}
	}
	return n
}

// available is availableLocked taking mu.
func (p *Pool) available(t *ticket) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.availableLocked(t)
}

// Available is how many idle sandboxes a caller outside the line (Take) may
// take now: the idle ones beyond those owed to the acquisitions waiting.
func (p *Pool) Available() int { return p.available(nil) }

// wantingLocked is how many acquisitions in the line are not creating
// their own sandbox: each takes the next one parked. It counts them
// between two waits too, when they are out of the budget's line
// (Waiting), so a sandbox given back meanwhile is kept for them, not
// removed. Callers hold mu.
func (p *Pool) wantingLocked() int { return p.aheadLocked(nil) }
