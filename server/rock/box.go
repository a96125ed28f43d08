package rock

import (
	"sync"
	"time"
)

// ROCK sandbox states (State in rock.actions).
const (
	statePending = "pending"
	stateRunning = "running"
	stateStopped = "stopped"
)

// ROCK phase statuses (Status in rock.deployments.status).
const (
	phaseWaiting = "waiting"
	phaseRunning = "running"
	phaseSuccess = "success"
	phaseFailed  = "failed"
)

// phase is one start-up stage as get_status reports it.
type phase struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

// transition is one entry of state_history.
type transition struct {
	From      string `json:"from_state"`
	To        string `json:"to_state"`
	Event     string `json:"event"`
	Timestamp string `json:"timestamp"`
}

// box is one sandbox of the API, from start_async until it is forgotten
// (a while after it stopped).
type box struct {
	id      string
	req     StartRequest
	who     caller
	created time.Time
	ttl     time.Duration

	mu       sync.Mutex
	state    string
	phases   map[string]phase
	history  []transition
	lease    Lease
	sessions map[string]*bashSession
	used     time.Time
	started  time.Time
	stopped  time.Time
	outcome  map[string]string
	// startErr is set when the start failed: the box stays pending with a
	// failed phase (as in ROCK) until it is forgotten.
	startErr error
	// stopping is set while stop (or expiry) tears the sandbox down;
	// ended is closed once it is down.
	stopping bool
	ended    chan struct{}
}

// caller is who started the box, from ROCK's headers.
type caller struct {
	UserID, ExperimentID, Namespace, Cluster string
}

func newBox(id string, req StartRequest, who caller, ttl time.Duration) *box {
	t := time.Now()
	b := &box{id: id, req: req, who: who, created: t, ttl: ttl, used: t, state: statePending,
		phases:   map[string]phase{"image_pull": {phaseWaiting, "waiting"}, "docker_run": {phaseWaiting, "waiting"}},
		sessions: map[string]*bashSession{}, ended: make(chan struct{})}
	return b
}

// setState moves the box to state, recording the transition. b.mu held.
func (b *box) setState(state, event string) {
	if b.state == state {
		return
	}
	b.history = append(b.history, transition{From: b.state, To: state, Event: event, Timestamp: isoTime(time.Now())})
	b.state = state
	switch state {
	case stateRunning:
		b.started = time.Now()
	case stateStopped:
		b.stopped = time.Now()
	}
}

// touch restarts the idle timeout.
func (b *box) touch() {
	b.mu.Lock()
	b.used = time.Now()
	b.mu.Unlock()
}

// hangUpSessions releases every session's terminal without waiting for
// running commands: the sandbox is going away, and its processes with it.
func (b *box) hangUpSessions() {
	b.mu.Lock()
	sessions := b.sessions
	b.sessions = map[string]*bashSession{}
	b.mu.Unlock()
	for _, s := range sessions {
		if s != nil { // nil: still starting; create_session hangs it up when it sees the box stopped
			s.hangUp()
		}
	}
}

func isoTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000000Z")
}
