package api

import "github.com/rbx-sandbox/rbx/verifier"

// EvidenceRequest asks for the reward-side evidence at an episode's state.
type EvidenceRequest struct {
	// Verifier also runs the task's verifier (in the scratch sandbox).
	Verifier bool `json:"verifier,omitempty"`
	// T scores the state after the episode's first t steps, counted as in
	// fork (reference prefix included); default: every action so far.
	T *int `json:"t,omitempty"`
}

// EvidenceResponse is the rubric (and verifier) at an episode's state,
// scored in a scratch sandbox: the episode's own sandbox is not touched.
type EvidenceResponse struct {
	Episode string `json:"episode"`
	Task    string `json:"task"`
	K       int    `json:"k"`
	// At is the state scored: after At steps, the prefix included.
	At       int                    `json:"at"`
	Score    float64                `json:"score"`
	Rubric   []verifier.RubricScore `json:"rubric"`
	Verifier *verifier.Result       `json:"verifier,omitempty"`
	Cost     EvidenceCost           `json:"cost"`
}

// EvidenceCost is what scoring a state took: evidence.Cost as it travels.
// It is a copy, not the evidence package's type, because that package
// links the reset engine and the prefix cache; the fields must stay the
// same as evidence.Cost's (the server converts one into the other, so a
// difference does not compile).
type EvidenceCost struct {
	// Source names how the state was materialised ("replay": a scratch
	// sandbox from the pool, prefix and actions replayed).
	Source string `json:"source"`
	// StepsReplayed counts the steps executed to reach the state:
	// PrefixSteps of the reference plus ActionSteps of the episode (a
	// cached prefix replays fewer).
	StepsReplayed int `json:"steps_replayed"`
	PrefixSteps   int `json:"prefix_steps"`
	ActionSteps   int `json:"action_steps"`
	// Diverged lists the actions (0-based, after K) whose exit code in the
	// scratch sandbox differed from the one recorded live: the scratch
	// state may differ from the episode's there.
	Diverged []int   `json:"diverged,omitempty"`
	ReplayMS float64 `json:"replay_ms"`
	ScoreMS  float64 `json:"score_ms"`
	TotalMS  float64 `json:"total_ms"`
}
