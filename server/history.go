package server

import "sync"

// historyMax is how many outcomes per task the history ring keeps.
const historyMax = 256

// history keeps the latest outcomes per task in a bounded ring.
type history struct {
	mu   sync.Mutex
	max  int
	task map[string][]HistoryEvent
}

func newHistory(max int) *history { return &history{max: max, task: map[string][]HistoryEvent{}} }

func (h *history) add(ev HistoryEvent) {
	h.mu.Lock()
	defer h.mu.Unlock()
	l := append(h.task[ev.Task], ev)
	if len(l) > h.max {
		l = l[len(l)-h.max:]
	}
	h.task[ev.Task] = l
}

// last returns up to n of the task's latest events, oldest first.
func (h *history) last(task string, n int) []HistoryEvent {
	h.mu.Lock()
	defer h.mu.Unlock()
	l := h.task[task]
	if n < len(l) {
		l = l[len(l)-n:]
	}
	return append([]HistoryEvent{}, l...)
}
