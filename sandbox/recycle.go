package sandbox

import (
	"context"
	"fmt"
	"time"
)

// Recycler is implemented by sandboxes created with Spec.Recycle.
type Recycler interface {
	// Recycle returns the sandbox to the state it had when Create returned
	// (files on every writable mount, no process but the backend's own, no
	// IPC object), proved by a listing taken by the backend's trusted
	// agent, and, in session mode, opens a fresh session shell. Any doubt
	// returns an error wrapping ErrRecycle: the caller must then remove the
	// sandbox, never use it again.
	Recycle(ctx context.Context) (RecycleReport, error)
}

// RecyclePreparer is implemented by the sandboxes of backends whose Create
// of a recyclable sandbox (Spec.Recycle) does work a plain one does not:
// the fresh listing the recycles are later proved against. A pool weighs
// that cost, paid again at every creation, against what recycling saves.
type RecyclePreparer interface {
	// RecyclePrepared is how long Create spent preparing recycling (0
	// for a sandbox created without Spec.Recycle).
	RecyclePrepared() time.Duration
}

// RecycleReport says what a Recycle did.
type RecycleReport struct {
	// Killed counts the processes left by the episode and killed.
	Killed int
	// IPCRemoved counts the SysV IPC objects and POSIX queues removed.
	IPCRemoved int
	// Removed counts the entries the episode created (a removed directory
	// counts once, with its tree).
	Removed int
	// Restored counts the entries recreated from the image or the
	// sandbox's fresh listing (changed or deleted files, symlinks...).
	Restored int
	// MetaFixed counts the entries whose owner, mode or mtime was reset.
	MetaFixed int
	// Untouched counts the entries a walk listed for the first time and
	// took as the image's: a sandbox whose fresh listing was scoped by its
	// upper layer proves the image's entries when a recycle first lists
	// them, and the upper layer does not hold them.
	Untouched int
	// Entries is the size of the proved listing.
	Entries int
	// Scoped is how many directories of the root filesystem the walk was
	// limited to (the overlay's upper layer's; see docs/recycling.md), 0
	// for a walk of every writable mount.
	Scoped int
	// Duration is the wall time of the whole recycle.
	Duration time.Duration
}

// RecycleError is the failure of a Recycle; it wraps ErrRecycle and its cause.
type RecycleError struct {
	ID string
	// Reason says which part failed ("scan", "restore", "verify"...).
	Reason string
	Err    error
}

func (e *RecycleError) Error() string {
	return fmt.Sprintf("recycle sandbox %s: %s: %v", e.ID, e.Reason, e.Err)
}

// Unwrap returns ErrRecycle and the cause.
func (e *RecycleError) Unwrap() []error { return []error{ErrRecycle, e.Err} }

// RecycleChecker is implemented by runtimes that can recycle the
// sandboxes of some specs only.
type RecycleChecker interface {
	// CheckRecycle returns nil when the sandboxes of spec can be created
	// with Spec.Recycle, else why not (wrapping ErrUnsupported).
	CheckRecycle(spec Spec) error
}

// CanRecycle returns nil when rt (a Runtime, or what creates its
// sandboxes) can recycle the sandboxes of spec, else why not: never a
// read-only root (Validate refuses Spec.Recycle with one), and what rt's
// RecycleChecker says.
func CanRecycle(rt any, spec Spec) error {
	if spec.ReadOnlyRoot {
		return fmt.Errorf("%w: recycle: a read-only root is not recycled", ErrUnsupported)
	}
	if c, ok := rt.(RecycleChecker); ok {
		return c.CheckRecycle(spec)
	}
	return nil
}
