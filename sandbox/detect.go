package sandbox

import (
	"context"
	"fmt"
	"strings"
)

// Backend is one entry of the ordered list Detect tries. Each backend
// package exports Available and New; the caller lists them in one place.
type Backend struct {
	// Name is the backend's short name, as Runtime.Name returns it.
	Name string
	// Unisolated marks a backend whose sandboxes are plain host processes
	// (local). Detect never picks one: running untrusted commands on the
	// host must be asked for by name (Open).
	Unisolated bool
	// Available reports whether the backend can run here, with an error
	// wrapping ErrUnavailable when it cannot.
	Available func(ctx context.Context) error
	// New builds the runtime; it is only called after Available succeeded.
	New func() (Runtime, error)
	// Configured reports that the user pointed at this backend explicitly
	// (DOCKER_HOST, an address flag). When such a backend does not answer,
	// Detect stops there instead of trying the next one: switching engines
	// behind a setting the user made would hide that it is broken.
	Configured func() bool
}

// Skipped is a backend Detect passed over, and why.
type Skipped struct {
	Name string
	Err  error
}

// NoRuntimeError is Detect's error when no isolating backend answers. It
// matches ErrUnavailable and every backend's own error with errors.Is.
type NoRuntimeError struct {
	// Tried are the isolating backends that did not answer, in order.
	Tried []Skipped
}

// Error names each backend tried and why it did not answer.
func (e *NoRuntimeError) Error() string {
	if len(e.Tried) == 0 {
		return "no isolating sandbox runtime is configured"
	}
	why := make([]string, len(e.Tried))
	for i, s := range e.Tried {
		why[i] = s.Name + ": " + strings.TrimPrefix(s.Err.Error(), s.Name+": ")
	}
	return "no isolating sandbox runtime answered (" + strings.Join(why, "; ") + ")"
}

// Unwrap returns ErrUnavailable and the backends' errors.
func (e *NoRuntimeError) Unwrap() []error {
	errs := []error{ErrUnavailable}
	for _, s := range e.Tried {
		errs = append(errs, s.Err)
	}
	return errs
}

// Detect returns a runtime of the first isolating backend whose Available
// succeeds, trying them in order, with the backends it passed over before
// it, so that the caller can report them. Unisolated backends are never
// chosen: a fallback to host processes would lower isolation silently.
// With none available the error is a *NoRuntimeError.
func Detect(ctx context.Context, backends ...Backend) (Runtime, []Skipped, error) {
	var skipped []Skipped
	for _, b := range backends {
		if b.Unisolated {
			continue
		}
		err := b.Available(ctx)
		if err == nil {
			rt, err := b.New()
			if err != nil {
				return nil, skipped, fmt.Errorf("runtime %s: %w", b.Name, err)
			}
			return rt, skipped, nil
		}
		skipped = append(skipped, Skipped{Name: b.Name, Err: err})
		if b.Configured != nil && b.Configured() {
			return nil, skipped, &NoRuntimeError{Tried: skipped}
		}
	}
	return nil, skipped, &NoRuntimeError{Tried: skipped}
}

// Open returns the runtime of the backend called name, with an error
// wrapping ErrUnavailable when it does not answer and ErrUnknownBackend
// when no backend has that name.
func Open(ctx context.Context, name string, backends ...Backend) (Runtime, error) {
	for _, b := range backends {
		if b.Name != name {
			continue
		}
		if err := b.Available(ctx); err != nil {
			return nil, fmt.Errorf("runtime %s: %w", name, err)
		}
		return b.New()
	}
	return nil, fmt.Errorf("runtime %q: %w", name, ErrUnknownBackend)
}
