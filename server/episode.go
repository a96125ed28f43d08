package server

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/server/api"
	"github.com/rbx-sandbox/rbx/verifier"
)

// record is what outlives an episode's sandbox: enough to export or fork it.
type record struct {
	ID   string `json:"id"`
	Task string `json:"task"`
	K    int    `json:"k"`
	T    int    `json:"t"`
	// RefVersion is the reference version the episode was reset on; 0 in
	// journals written before reference refresh means 1.
	RefVersion int    `json:"reference_version,omitempty"`
	Parent     string `json:"parent,omitempty"`
	ForkT      int    `json:"fork_t,omitempty"`
	// Purpose is why the curriculum chose k (rollback, probe, learn, ...).
	Purpose string      `json:"purpose,omitempty"`
	State   string      `json:"state"`
	Actions []Action    `json:"actions"`
	Created time.Time   `json:"created"`
	Updated time.Time   `json:"updated"`
	Outcome *Evaluation `json:"outcome,omitempty"`
	// Verifier is the evaluation's verifier result (output clipped to
	// verifierExcerpt bytes, rubric scores): what the dashboard shows.
	Verifier *verifier.Result `json:"verifier,omitempty"`
	// End says who an episode that ended without a verdict of its
	// verifier is charged to, and why (also a policy's end, evaluated
	// with reward 0).
	End *api.End `json:"end,omitempty"`
	// Feeds: the outcome goes to the curriculum (journaled, so an episode
	// resumed after a restart still feeds it).
	Feeds bool `json:"feeds,omitempty"`
	// Recovered counts the sandbox's rebuilds after infrastructure faults.
	Recovered int `json:"recovered,omitempty"`
	// steps counts the actions of a record listed without them.
	steps int
}

// verifierExcerpt bounds the verifier output an episode record keeps.
const verifierExcerpt = 16 << 10

// episode is a live episode: its record plus the sandbox and the replay run
// that continues the reference prefix with the policy's actions.
type episode struct {
	mu    sync.Mutex
	rec   record
	entry *Entry
	sb    sandbox.Sandbox
	run   *replayer.Run // the reset's replay, continued with the policy's actions
	// groupKey is the reset's group key: the episode's end closes the
	// keyed group to new members.
	groupKey string
	used     time.Time
	// deadline is when the episode ends truncated: handed out plus the
	// task's limits.episode_timeout (set by admit).
	deadline time.Time
	holds    atomic.Bool // sb is set: read without the lock by metrics
	// answer is the evaluation's answer, returned again to a client that
	// retries evaluate.
	answer *EvaluateResponse
}

func newEpisodeID() string {
	b := make([]byte, 10)
	_, _ = rand.Read(b)
	return "ep_" + hex.EncodeToString(b)
}

// snapshot copies the record under the episode's lock.
func (ep *episode) snapshot() record {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	r := ep.rec
	r.Actions = append([]Action(nil), ep.rec.Actions...)
	return r
}

// snapshotLocked copies the record; callers hold ep.mu.
func (ep *episode) snapshotLocked() record {
	r := ep.rec
	r.Actions = append([]Action(nil), ep.rec.Actions...)
	return r
}

// interventions counts the intervened share of steps and of tokens.
func interventions(actions []Action) (steps, n, tokens, total int) {
	for _, a := range actions {
		n++
		total += a.Tokens
		if a.Intervened {
			steps++
			tokens += a.Tokens
		}
	}
	return steps, n, tokens, total
}
