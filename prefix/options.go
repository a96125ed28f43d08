package prefix

import (
	"fmt"
	"io"
	"log/slog"
	"time"
)

type config struct {
	maxBytes int64
	maxEntry int64
	maxAge   time.Duration
	log      *slog.Logger
	now      func() time.Time
	// cheapCapture: see WithCheapCapture.
	cheapCapture time.Duration
}

// Option configures a Cache.
type Option func(*config) error

// WithMaxBytes bounds the memory the cache holds, entries and baselines
// (default 512 MiB); the least recently used entries go first.
func WithMaxBytes(n int64) Option {
	return func(c *config) error {
		if n < 1 {
			return fmt.Errorf("prefix cache size %d: expected ≥ 1 byte", n)
		}
		c.maxBytes = n
		return nil
	}
}

// WithMaxEntryBytes bounds the changed files one entry may hold (default
// 64 MiB); a larger state is not cached (logged).
func WithMaxEntryBytes(n int64) Option {
	return func(c *config) error {
		if n < 1 {
			return fmt.Errorf("prefix cache entry bound %d: expected ≥ 1 byte", n)
		}
		c.maxEntry = n
		return nil
	}
}

// WithMaxAge bounds how long an entry, a baseline or a "not reusable"
// verdict is kept (default 1h): time-dependent state that no step marks
// volatile goes no staler than this.
func WithMaxAge(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("prefix cache age %v: expected > 0", d)
		}
		c.maxAge = d
		return nil
	}
}

// WithLogger sets the logger (default: discard); a prefix found not
// reusable is logged at Warn (rbx serve's default level) once per reason.
func WithLogger(l *slog.Logger) Option { return func(c *config) error { c.log = l; return nil } }

// withClock replaces time.Now (tests).
func withClock(now func() time.Time) Option { return func(c *config) error { c.now = now; return nil } }

func defaults() config {
	return config{maxBytes: 512 << 20, maxEntry: 64 << 20, maxAge: time.Hour,
		log: slog.New(slog.NewTextHandler(io.Discard, nil)), now: time.Now, cheapCapture: DefaultCheapCapture}
}
