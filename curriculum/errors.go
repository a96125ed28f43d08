package curriculum

import "errors"

var (
	// ErrUnknownTask is returned for a task that was never registered.
	ErrUnknownTask = errors.New("unknown task")
	// ErrInvalidCheckpoint is returned when an outcome names a checkpoint
	// that cannot be served: outside [0, T), or marked checkpoint: false.
	ErrInvalidCheckpoint = errors.New("invalid checkpoint")
	// ErrInvalidTask is returned when a TaskInfo is malformed.
	ErrInvalidTask = errors.New("invalid task")
	// ErrTaskConflict is returned when a task is registered again with a
	// different shape (T or valid checkpoints).
	ErrTaskConflict = errors.New("task registered with a different shape")
	// ErrInvalidOption is returned by New for an out-of-range parameter.
	ErrInvalidOption = errors.New("invalid option")
	// ErrInvalidRebase is returned when a Rebase does not fit the task:
	// wrong version, k outside either reference, or a changed prefix.
	ErrInvalidRebase = errors.New("invalid rebase")
)
