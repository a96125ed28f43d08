package sandbox

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// EngineErr maps a backend engine's error onto the sentinels at the
// backend's boundary, keeping the engine's message and chain: errors for
// which notFound holds wrap ErrNotFound, those for which unavailable holds
// (the engine cannot be reached) wrap ErrUnavailable. An error translated
// already (ErrSandboxGone, ErrUnavailable) is returned as it is, so that a
// backend may translate at every layer without wrapping twice.
func EngineErr(err error, notFound, unavailable func(error) bool) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrSandboxGone), errors.Is(err, ErrUnavailable):
		return err
	case notFound(err):
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	case unavailable(err):
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return err
}

// SettledGone calls check (a backend's "is the sandbox still running",
// returning a *GoneError when not) up to tries times, 25ms, 50ms... apart,
// and returns its first error: an engine records a container's death a
// moment after its processes die, so a single look right after a kill
// can still see it running. It runs on error paths only.
func SettledGone(ctx context.Context, tries int, check func(context.Context) error) error {
	for i := 0; i < tries; i++ {
		if i > 0 {
			time.Sleep(time.Duration(i) * 25 * time.Millisecond)
		}
		if err := check(ctx); err != nil {
			return err
		}
	}
	return nil
}
