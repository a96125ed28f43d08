package sandbox

import (
	"errors"
	"strconv"
)

// Sentinel errors callers branch on with errors.Is. Backends translate their
// engine's errors into these at their boundary.
var (
	// ErrNotFound: the sandbox, file or image does not exist.
	ErrNotFound = errors.New("not found")
	// ErrImageMissing: the image is not present locally (nothing is pulled).
	ErrImageMissing = errors.New("image missing")
	// ErrInvalidSpec: a Spec field cannot be honoured.
	ErrInvalidSpec = errors.New("invalid sandbox spec")
	// ErrUnavailable: the backend cannot be reached (engine down).
	ErrUnavailable = errors.New("runtime unavailable")
	// ErrSandboxGone: the sandbox stopped or was removed underneath us.
	ErrSandboxGone = errors.New("sandbox gone")
	// ErrSessionLost: the sandbox's session shell ended and was not
	// reopened; see SessionLostError.
	ErrSessionLost = errors.New("session lost")
	// ErrPathEscape: a file path resolves outside the sandbox (local backend).
	ErrPathEscape = errors.New("path escapes the sandbox")
	// ErrUnknownBackend: no backend has the requested name.
	ErrUnknownBackend = errors.New("unknown backend")
	// ErrUnsupported: the backend cannot honour a Spec field (Spec.Recycle
	// on a backend without a trusted agent).
	ErrUnsupported = errors.New("unsupported by this backend")
	// ErrRecycle: a Recycle failed; the sandbox must be removed (see
	// RecycleError).
	ErrRecycle = errors.New("recycle failed")
)

// Causes a GoneError reports.
const (
	// CauseOOMKilled: the kernel OOM killer ended the sandbox (its init or
	// keep-alive process) at its memory limit.
	CauseOOMKilled = "oom_killed"
	// CauseKilled: the sandbox was killed by a signal from outside (for
	// example `docker kill`).
	CauseKilled = "killed"
	// CauseExited: the sandbox's main process exited or the sandbox was stopped.
	CauseExited = "exited"
	// CauseRemoved: the sandbox was removed, by this process or another.
	CauseRemoved = "removed"
	// CauseEngineUnavailable: the engine stopped answering while the sandbox
	// was in use; its session (if any) is lost.
	CauseEngineUnavailable = "engine_unavailable"
)

// GoneError reports a sandbox that died or disappeared during an operation
// and why. errors.Is(err, ErrSandboxGone) holds for every GoneError, and
// errors.Is(err, ErrUnavailable) also holds when Cause is
// CauseEngineUnavailable.
type GoneError struct {
	// ID is the sandbox id.
	ID string
	// Cause is one of the Cause* constants.
	Cause string
	// ExitCode is the sandbox main process's exit status, when known.
	ExitCode int
	// Detail is the engine's own words (its state error, status), if any.
	Detail string
}

// Error names the sandbox and the cause.
func (e *GoneError) Error() string {
	msg := "sandbox " + e.ID + ": " + ErrSandboxGone.Error() + ": " + e.Cause
	if e.Cause == CauseKilled || e.Cause == CauseExited || e.Cause == CauseOOMKilled {
		msg += " (exit " + strconv.Itoa(e.ExitCode) + ")"
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Unwrap returns ErrSandboxGone.
func (e *GoneError) Unwrap() error { return ErrSandboxGone }

// Is matches ErrUnavailable for an engine that went away, so callers that
// branch on either sentinel see it.
func (e *GoneError) Is(target error) bool {
	return target == ErrUnavailable && e.Cause == CauseEngineUnavailable
}
