package api

import "github.com/rbx-sandbox/rbx/verifier"

// EvaluateResponse is an episode's verdict.
type EvaluateResponse struct {
	Episode string `json:"episode"`
	Task    string `json:"task"`
	K       int    `json:"k"`
	T       int    `json:"t"`
	// Reward is 1 when the verifier passed, else 0; Score is the rubric's
	// weighted share of passed items, for shaping.
	Reward   float64                `json:"reward"`
	Success  bool                   `json:"success"`
	Score    float64                `json:"score"`
	Verifier verifier.Result        `json:"verifier"`
	Rubric   []verifier.RubricScore `json:"rubric"`
	// Steps counts the policy's actions (a fork's inherited ones included).
	Steps      int          `json:"steps"`
	Intervened Intervention `json:"intervened"`
	// ShiftExceeded: the intervened share of steps or of tokens is over
	// the server's --max-intervention-share; a trainer drops the episode.
	ShiftExceeded bool `json:"shift_exceeded"`
	// Observed reports that the outcome went to the curriculum: episodes
	// whose k the curriculum chose (or reset with feed_curriculum) and
	// without intervened steps; never forks.
	Observed bool `json:"observed"`
	// ReferenceVersion is the reference version the episode was reset on.
	ReferenceVersion int `json:"reference_version"`
	// ReferenceCandidate reports that the episode was queued as a
	// candidate reference (reference refresh is on, the episode succeeded
	// on-policy with fewer actions than the reference's suffix).
	ReferenceCandidate bool `json:"reference_candidate,omitempty"`
	// Recovered counts the times the episode's sandbox was rebuilt by
	// replay after infrastructure faults.
	Recovered int `json:"recovered,omitempty"`
	// End is set when the policy ended the episode before a verdict (its
	// action exhausted the sandbox): Reward is 0 and the curriculum
	// counted the failure; Verifier is empty.
	End *End `json:"end,omitempty"`
}

// Intervention is the shift filter's evidence.
type Intervention struct {
	Steps      int     `json:"steps"`
	Share      float64 `json:"share"`
	Tokens     int     `json:"tokens"`
	TokenShare float64 `json:"token_share"`
}
