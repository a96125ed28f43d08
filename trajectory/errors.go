package trajectory

import (
	"errors"

	"github.com/rbx-sandbox/rbx/task"
)

// Sentinel errors callers branch on with errors.Is. Problems in a document
// are *task.ParseError values instead (see Load).
var (
	// ErrUndefined: a {{vars.NAME}} or {{services.NAME}} reference names
	// nothing that is defined.
	ErrUndefined = errors.New("undefined reference")
	// ErrMalformedRef: text starting like a reference ("{{vars.") is not a
	// well-formed {{vars.NAME}} or {{services.NAME}}.
	ErrMalformedRef = errors.New("malformed reference")
	// ErrTaskNotFound: the trajectory's task field names neither a file nor
	// the id of a task file next to the trajectory.
	ErrTaskNotFound = errors.New("task not found")
)

// ParseError is task.ParseError, the located problem shared by both formats.
type ParseError = task.ParseError
