package capacity

import "time"

// Stats is a snapshot of the budget.
type Stats struct {
	// Max is the budget; Live the slots held (sandboxes alive, being
	// created or removed, and reserved for ones about to be created);
	// Peak the most held at once.
	Max  int `json:"max"`
	Live int `json:"live"`
	Peak int `json:"peak"`
	// States splits Live by what the sandboxes are doing.
	States map[State]int `json:"states"`
	// Waiting are acquisitions waiting in line now; Waits counts those
	// that waited, TimedOut those whose deadline came first (429), and
	// WaitTotal their summed wait.
	Waiting   int           `json:"waiting"`
	Waits     int64         `json:"waits"`
	TimedOut  int64         `json:"timed_out"`
	WaitTotal time.Duration `json:"wait_total_ns"`
}

// Stats returns the budget's counters.
func (b *Budget) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := Stats{Max: b.max, Live: b.used, Peak: b.peak, States: make(map[State]int, len(States)),
		Waiting: b.queue.Len(), Waits: b.waits, TimedOut: b.timeouts, WaitTotal: b.waitSum}
	for _, s := range States {
		st.States[s] = b.states[s]
	}
	return st
}
