package api

// End is why an episode ended other than by its verifier's verdict, or why
// a call on it failed, and who it is charged to (docs/durability.md).
type End struct {
	// Attribution is "policy" (its own action ended the episode: a failure,
	// reward 0, counted by the curriculum), "task" (the reference or the
	// verifier is broken) or "infrastructure" (anything else: never the
	// policy's failure).
	Attribution string `json:"attribution"`
	// Reason names the rule that decided (pids_exhausted, sandbox_killed,
	// verifier_broken, ...).
	Reason string `json:"reason"`
	// Detail is the evidence in words.
	Detail string `json:"detail,omitempty"`
	// Retryable: a new episode at the same checkpoint may succeed.
	Retryable bool `json:"retryable"`
}
