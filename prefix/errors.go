package prefix

import (
	"errors"
	"fmt"
)

// ErrNotReusable is wrapped by every *NotReusableError.
var ErrNotReusable = errors.New("prefix not reusable")

// ErrApply means an entry could not be applied, or did not read back as
// captured: the sandbox is in an unknown state and must be discarded.
var ErrApply = errors.New("apply cached prefix")

// NotReusableError says why the state after a prefix cannot be cached.
// Step is the first step whose effect cannot be carried (-1 when the
// reason is not one step's, such as a missing tool in the image).
type NotReusableError struct {
	Step int
	Why  string
}

func (e *NotReusableError) Error() string {
	if e.Step < 0 {
		return "prefix not reusable: " + e.Why
	}
	return fmt.Sprintf("prefix not reusable from step %d: %s", e.Step, e.Why)
}

// Unwrap makes errors.Is(err, ErrNotReusable) hold.
func (e *NotReusableError) Unwrap() error { return ErrNotReusable }

func notReusable(step int, format string, args ...any) error {
	return &NotReusableError{Step: step, Why: fmt.Sprintf(format, args...)}
}
