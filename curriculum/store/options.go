package store

import "fmt"

type config struct {
	maxBatch int
}

// Option configures a Store. The database's own settings (WAL,
// synchronous=FULL, busy timeout) are statedb's, one set for every user.
type Option func(*config) error

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
