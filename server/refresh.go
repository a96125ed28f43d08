package server

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rbx-sandbox/rbx/reason"
)

// refresher queues candidates for the background check: at most one per
// task waits (the shortest), and one check runs at a time, so refresh
// never takes more than one sandbox at once from the engine.
type refresher struct {
	check   candidateChecker
	mu      sync.Mutex
	pending map[string]*candidate
	queue   []string // tasks with a pending candidate, oldest first
	events  map[string][]CandidateEvent
	wake    chan struct{}
	results *prometheus.CounterVec
	reasons *prometheus.CounterVec
}

// eventsKept bounds the candidate events listed per task.
const eventsKept = 32

func newRefresher(check candidateChecker, reg prometheus.Registerer) *refresher {
	rf := &refresher{check: check, pending: map[string]*candidate{}, events: map[string][]CandidateEvent{},
		wake: make(chan struct{}, 1),
		results: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rbx_serve_reference_candidates_total",
			Help: "Reference candidates by task and result (seen, verified, adopted, rejected)."}, []string{"task", "result"}),
		reasons: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rbx_serve_reference_rejections_total",
			Help: "Rejected reference candidates by task and reason."}, []string{"task", "reason"})}
	reg.MustRegister(rf.results, rf.reasons)
	return rf
}

// note records an event of c.
func (rf *refresher) note(c *candidate, result string, why reason.Reason, detail string, version int) CandidateEvent {
	ev := CandidateEvent{Task: c.task, Episode: c.episode, Parent: c.parent, K: c.k, T: c.traj.Len(),
		Result: result, Reason: why, Detail: detail, Version: version, At: time.Now().UTC()}
	rf.results.WithLabelValues(c.task, result).Inc()
	if result == CandidateRejected {
		rf.reasons.WithLabelValues(c.task, string(why)).Inc()
	}
	rf.mu.Lock()
	defer rf.mu.Unlock()
	evs := append(rf.events[c.task], ev)
	rf.events[c.task] = evs[max(0, len(evs)-eventsKept):]
	return ev
}

// enqueue queues c unless a candidate of its task at most as long waits;
// it returns the candidate the queue dropped (c itself or the one c
// replaced), or nil.
func (rf *refresher) enqueue(c *candidate) (dropped *candidate) {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	old, ok := rf.pending[c.task]
	switch {
	case !ok:
		rf.queue = append(rf.queue, c.task)
	case old.traj.Len() <= c.traj.Len():
		return c
	default:
		dropped = old
	}
	rf.pending[c.task] = c
	select {
	case rf.wake <- struct{}{}:
	default:
	}
	return dropped
}

// next takes the oldest waiting candidate, or nil.
func (rf *refresher) next() *candidate {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	if len(rf.queue) == 0 {
		return nil
	}
	task := rf.queue[0]
	rf.queue = rf.queue[1:]
	c := rf.pending[task]
	delete(rf.pending, task)
	return c
}

// history lists the task's latest candidate events, oldest first.
func (rf *refresher) history(task string) []CandidateEvent {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	return append([]CandidateEvent{}, rf.events[task]...)
}
