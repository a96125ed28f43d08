package sandbox

import "errors"

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
	// ErrPathEscape: a file path resolves outside the sandbox (local backend).
	ErrPathEscape = errors.New("path escapes the sandbox")
)
