package store

import "fmt"

type config struct {
	sync     string
	maxBatch int
}

// Option configures a Store.
type Option func(*config) error

// WithSynchronous sets SQLite's synchronous pragma (default "FULL": a
// commit survives power loss; "NORMAL" in WAL mode survives a killed
// process but may lose the last commits on power loss).
func WithSynchronous(mode string) Option {
	return func(c *config) error {
		if mode != "FULL" && mode != "NORMAL" && mode != "EXTRA" {
			return fmt.Errorf("synchronous %q: expected FULL, NORMAL or EXTRA", mode)
		}
		c.sync = mode
		return nil
	}
}

// WithMaxBatch bounds the rows of one commit group (default 1024).
func WithMaxBatch(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return fmt.Errorf("max batch %d: expected at least 1", n)
		}
		c.maxBatch = n
		return nil
	}
}
