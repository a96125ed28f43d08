package sandbox

import (
	"context"
	"errors"
	"fmt"
)

// Backend is one entry of the ordered list Detect tries. Each backend
// package exports Available and New; the caller lists them in one place.
type Backend struct {
	// Name is the backend's short name, as Runtime.Name returns it.
	Name string
	// Available reports whether the backend can run here, with an error
	// wrapping ErrUnavailable when it cannot.
	Available func(ctx context.Context) error
	// New builds the runtime; it is only called after Available succeeded.
	New func() (Runtime, error)
}

// Skipped is a backend Detect passed over, and why.
type Skipped struct {
	Name string
	Err  error
}

// Detect returns a runtime of the first backend whose Available succeeds,
// trying them in order, with the backends it passed over before it, so that
// the caller can report a fallback (a fallback may lower isolation: it must
// not be silent). With none available the error wraps ErrUnavailable and
// joins every backend's reason.
func Detect(ctx context.Context, backends ...Backend) (Runtime, []Skipped, error) {
	var skipped []Skipped
	for _, b := range backends {
		err := b.Available(ctx)
		if err == nil {
			rt, err := b.New()
			if err != nil {
				return nil, skipped, fmt.Errorf("runtime %s: %w", b.Name, err)
			}
			return rt, skipped, nil
		}
		skipped = append(skipped, Skipped{Name: b.Name, Err: err})
	}
	errs := []error{ErrUnavailable}
	for _, s := range skipped {
		errs = append(errs, fmt.Errorf("%s: %w", s.Name, s.Err))
	}
	return nil, skipped, fmt.Errorf("detect runtime: %w", errors.Join(errs...))
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
