package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox"
)

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
	CodeResetFailed     = "reset_failed"       // the replay to k failed
	CodeSandboxLost     = "sandbox_lost"       // the episode's sandbox died
	CodeUnauthorized    = "unauthorized"       // missing or wrong bearer token
	CodeTooLarge        = "too_large"          // request body over the limit
	CodeTooManyEpisodes = "too_many_episodes"  // --max-episodes are open
	CodeNotFound        = "not_found"          // no such route
	CodeMethod          = "method_not_allowed" // route exists, method does not
	CodeShuttingDown    = "shutting_down"      // the server is draining
	CodeInternal        = "internal"           // a bug or the database failed
)

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

func apiErr(status int, code, format string, a ...any) *APIError {
	return &APIError{Status: status, Code: code, Message: fmt.Sprintf(format, a...)}
}

func (e *APIError) with(k string, v any) *APIError {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[k] = v
	return e
}

// resetFailed turns a reset error into reset_failed, naming the failing
// step when a replay stopped at one. A divergence is the trajectory's
// (422, retrying will not help); anything else is the infrastructure's
// (503, retryable).
func resetFailed(err error) *APIError {
	var se *replayer.StepError
	var re *reset.Error
	e := apiErr(http.StatusServiceUnavailable, CodeResetFailed, "%v", err).with("retryable", true)
	if errors.As(err, &re) {
		e.with("k", re.K).with("attempts", re.Attempts)
	}
	if errors.As(err, &se) {
		e.with("step", se.Index).with("reason", se.Reason).with("summary", se.Summary)
		if se.Expected != "" || se.Got != "" {
			e.with("expected", se.Expected).with("got", se.Got)
		}
		if !reason.IsInfra(err) {
			e.Status = http.StatusUnprocessableEntity
			e.with("retryable", false)
		}
	}
	if errors.Is(err, replayer.ErrCheckpoint) {
		e.Status, e.Code = http.StatusBadRequest, CodeBadCheckpoint
		e.with("retryable", false)
	}
	return e
}

// sandboxLost is the answer when an episode's sandbox died under a call.
func sandboxLost(id string, err error) *APIError {
	e := apiErr(http.StatusGone, CodeSandboxLost, "episode %s: the sandbox is gone: %v", id, err)
	var ge *sandbox.GoneError
	if errors.As(err, &ge) {
		e.with("cause", ge.Cause)
	}
	return e
}
