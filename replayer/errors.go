package replayer

import (
	"errors"
	"fmt"

	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// ErrCheckpoint means the requested k is not a checkpoint of the trajectory.
var ErrCheckpoint = errors.New("invalid checkpoint")

// StepError is a divergence or failure at one step: the replay stopped there.
type StepError struct {
	Index    int             `json:"step"`
	Action   trajectory.Kind `json:"action"`
	Summary  string          `json:"summary"`
	Reason   reason.Reason   `json:"reason"`
	Expected string          `json:"expected,omitempty"`
	Got      string          `json:"got,omitempty"`
	// Output is an excerpt of what the step printed.
	Output string `json:"output,omitempty"`
	// Diff locates the first differing line of an output divergence,
	// with the lines around it on both sides.
	Diff *OutputDiff `json:"diff,omitempty"`
	Err  error       `json:"-"`
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

// Why returns the step's reason (reason.Carrier).
func (e *StepError) Why() reason.Reason { return e.Reason }

// Unwrap exposes the underlying sandbox or HTTP error.
func (e *StepError) Unwrap() error { return e.Err }
