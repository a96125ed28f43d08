package capacity

import "time"

// WaitOption sets how one acquisition waits in the budget's line.
type WaitOption func(*waiter)

// Patient marks an acquisition that will most likely be served by its own
// class's sandboxes coming back (episodes in flight that end and are
// recycled, or removed and free their slots), for d: until then it asks
// no evictor for room and Front reports it patient, so that another class
// keeps its returned and idle sandboxes instead of removing them for it.
// Removing another class's sandbox to create one costs that class a
// creation later; waiting up to a creation's time for one's own is never
// slower than creating. After d it waits like any other (d ≤ 0: at once).
func Patient(d time.Duration) WaitOption {
	return func(w *waiter) {
		if d > 0 {
			w.patientUntil = time.Now().Add(d)
		}
	}
}

// patient reports whether w still waits for its own class's sandboxes.
func (w *waiter) patient(now time.Time) bool {
	return !w.patientUntil.IsZero() && now.Before(w.patientUntil)
}

// Front reports who waits at the front of the line (as AcquireFor named
// it), whether that waiter is still patient (Patient), and whether anyone
// waits at all.
func (b *Budget) Front() (who string, patient, waiting bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if el := b.queue.Front(); el != nil {
		w := el.Value.(*waiter)
		return w.who, w.patient(time.Now()), true
	}
	return "", false, false
}

// patienceEnded asks the evictors for the room a waiter's patience kept
// from them, once it has run out.
func (b *Budget) patienceEnded() {
	b.mu.Lock()
	evict := b.evictionLocked()
	b.mu.Unlock()
	evict()
}
