package replayer

import (
	"errors"
	"fmt"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// ErrCheckpoint means the requested k is not a checkpoint of the trajectory.
var ErrCheckpoint = errors.New("invalid checkpoint")

// Reason classifies why a step stopped the replay.
type Reason string

// Reasons a replay stops.
const (
	// ReasonExitCode: the live exit code (or HTTP status) differs from the recorded one.
	ReasonExitCode Reason = "exit_code"
	// ReasonOutput: the live output differs from the recorded one under the policy.
	ReasonOutput Reason = "output"
	// ReasonTimeout: the step ran past its timeout.
	ReasonTimeout Reason = "timeout"
	// ReasonAction: the action itself could not be carried out (edit target
	// absent, capture field missing, service not allowed, undefined variable).
	ReasonAction Reason = "action_failed"
	// ReasonInfra: the sandbox or engine failed; the step says nothing about
	// the trajectory.
	ReasonInfra Reason = "infra"
)

// StepError is a divergence or failure at one step: the replay stopped there.
type StepError struct {
	Index    int             `json:"step"`
	Action   trajectory.Kind `json:"action"`
	Summary  string          `json:"summary"`
	Reason   Reason          `json:"reason"`
	Expected string          `json:"expected,omitempty"`
	Got      string          `json:"got,omitempty"`
	// Output is an excerpt of what the step printed.
	Output string `json:"output,omitempty"`
	Err    error  `json:"-"`
}

func (e *StepError) Error() string {
	msg := fmt.Sprintf("step %d (%s): %s", e.Index, e.Summary, e.Reason)
	if e.Expected != "" || e.Got != "" {
		msg += fmt.Sprintf(": expected %s, got %s", e.Expected, e.Got)
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap exposes the underlying sandbox or HTTP error.
func (e *StepError) Unwrap() error { return e.Err }
