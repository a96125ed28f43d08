package api

import "encoding/json"

// Error codes: stable strings clients switch on (docs/serve.md lists them).
const (
	CodeBadRequest      = "bad_request"        // malformed JSON or fields
	CodeBadToolCall     = "bad_tool_call"      // unknown tool or bad arguments
	CodeBadCheckpoint   = "bad_checkpoint"     // k outside [0, T) or not a checkpoint
	CodeUnknownTask     = "unknown_task"       // no such task
	CodeUnknownEpisode  = "unknown_episode"    // no such episode (or expired)
	CodeUnknownVersion  = "unknown_version"    // no such reference version
	CodeEpisodeFinished = "episode_finished"   // evaluated, closed, expired, truncated, failed or lost
	CodeStepLimit       = "step_limit"         // the episode used its steps
	CodeStepConflict    = "step_conflict"      // a step number that is neither the next nor a retry
	CodeResetFailed     = "reset_failed"       // the replay to k failed
	CodeSandboxLost     = "sandbox_lost"       // the infrastructure lost the episode's sandbox beyond repair
	CodeTaskBroken      = "task_broken"        // the task's reference or verifier is broken
	CodeUnauthorized    = "unauthorized"       // missing or wrong bearer token
	CodeTooLarge        = "too_large"          // request body over the limit
	CodeTooManyEpisodes = "too_many_episodes"  // --max-episodes are open
	CodeNotFound        = "not_found"          // no such route
	CodeMethod          = "method_not_allowed" // route exists, method does not
	CodeShuttingDown    = "shutting_down"      // the server is draining
	CodeInternal        = "internal"           // a bug or the database failed
)

// CodeCapacity is the answer to a reset that waited its deadline for room
// in the sandbox budget (--max-sandboxes); Retry-After says when to retry.
const CodeCapacity = "capacity"

// CodeRateLimited: an evidence call came sooner than the per-episode
// interval allows; Retry-After says when to retry.
const CodeRateLimited = "rate_limited"

// APIError is an error response: {"error": {"code", "message", ...details}}.
type APIError struct {
	Status  int            `json:"-"`
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"-"`
	// RetryAfter, when set, is sent as the Retry-After header (seconds).
	RetryAfter int `json:"-"`
}

func (e *APIError) Error() string { return e.Code + ": " + e.Message }

// MarshalJSON flattens the details next to code and message.
func (e *APIError) MarshalJSON() ([]byte, error) {
	m := map[string]any{}
	for k, v := range e.Details {
		m[k] = v
	}
	m["code"], m["message"] = e.Code, e.Message
	return json.Marshal(m)
}

// With sets detail k to v and returns e, so a handler builds an error's
// details in one chain. Exported because the server, which sets them,
// lives in another package than the type.
func (e *APIError) With(k string, v any) *APIError {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[k] = v
	return e
}
