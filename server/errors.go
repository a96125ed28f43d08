package server

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox"
)

func apiErr(status int, code, format string, a ...any) *APIError {
	return &APIError{Status: status, Code: code, Message: fmt.Sprintf(format, a...)}
}

// resetFailed turns a reset error into reset_failed, naming the failing
// step when a replay stopped at one. A divergence is the trajectory's
// (422, retrying will not help); anything else is the infrastructure's
// (503, retryable).
func resetFailed(err error) *APIError {
	var se *replayer.StepError
	var re *reset.Error
	e := apiErr(http.StatusServiceUnavailable, CodeResetFailed, "%v", err).With("retryable", true)
	if errors.As(err, &re) {
		e.With("k", re.K).With("attempts", re.Attempts)
	}
	if errors.As(err, &se) {
		e.With("step", se.Index).With("reason", se.Reason).With("summary", se.Summary)
		if se.Expected != "" || se.Got != "" {
			e.With("expected", se.Expected).With("got", se.Got)
		}
		if !reason.IsInfra(err) {
			e.Status = http.StatusUnprocessableEntity
			e.With("retryable", false)
		}
	}
	if errors.Is(err, replayer.ErrCheckpoint) {
		e.Status, e.Code = http.StatusBadRequest, CodeBadCheckpoint
		e.With("retryable", false)
	}
	return e
}

// sandboxLost is the answer when an episode's sandbox died under a call.
func sandboxLost(id string, err error) *APIError {
	e := apiErr(http.StatusGone, CodeSandboxLost, "episode %s: the sandbox is gone: %v", id, err)
	var ge *sandbox.GoneError
	if errors.As(err, &ge) {
		e.With("cause", ge.Cause)
	}
	return e
}
