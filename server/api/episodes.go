package api

import "github.com/rbx-sandbox/rbx/trajectory"

// Episode states.
const (
	StateOpen      = "open"
	StateEvaluated = "evaluated"
	StateClosed    = "closed"
	StateExpired   = "expired"
	StateFailed    = "failed"    // the sandbox died under a call
	StateLost      = "lost"      // open when a previous server process died
	StateTruncated = "truncated" // ran past the task's limits.episode_timeout
)

// Action is one policy action of an episode (after the reference prefix)
// with its live observation.
type Action struct {
	Step        trajectory.Step        `json:"step"`
	Observation trajectory.Observation `json:"observation"`
	Intervened  bool                   `json:"intervened,omitempty"`
	Tokens      int                    `json:"tokens,omitempty"`
	// Inherited actions were replayed from the parent by a fork.
	Inherited bool `json:"inherited,omitempty"`
}

// Evaluation is an evaluated episode's result as stored (the curriculum's
// curriculum.Outcome is what it learns from one: task, k, success).
type Evaluation struct {
	Success         bool    `json:"success"`
	Reward          float64 `json:"reward"`
	InterventionShr float64 `json:"intervened_share"`
	ShiftExceeded   bool    `json:"shift_exceeded"`
}

// EpisodeSummary is one row of the episode listing.
type EpisodeSummary struct {
	ID      string      `json:"id"`
	Task    string      `json:"task"`
	K       int         `json:"k"`
	State   string      `json:"state"`
	Parent  string      `json:"parent,omitempty"`
	Steps   int         `json:"steps"`
	Created string      `json:"created"`
	Updated string      `json:"updated"`
	Outcome *Evaluation `json:"outcome,omitempty"`
}
