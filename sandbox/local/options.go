package local

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// config holds what the options set.
type config struct {
	baseDir string
	grace   time.Duration
	owner   string
}

// Option configures a Runtime.
type Option func(*config) error

// WithBaseDir sets the directory under which sandbox directories are created
// and listed (default os.TempDir()/rbx-local). Two runtimes with the same base
// see each other's sandboxes.
func WithBaseDir(dir string) Option {
	return func(c *config) error {
		if dir == "" {
			return errors.New("base dir: empty path")
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return fmt.Errorf("base dir %q: %w", dir, err)
		}
		c.baseDir = abs
		return nil
	}
}

// WithGrace sets how long a killed session step may take to report back
// before the session shell is declared broken and restarted (default 2s).
func WithGrace(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("grace %v: must be positive", d)
		}
		c.grace = d
		return nil
	}
}

// WithOwner sets the rbx.owner label of created sandboxes (default
// sandbox.Owner, this process).
func WithOwner(owner string) Option {
	return func(c *config) error {
		if owner == "" {
			return errors.New("owner: empty")
		}
		c.owner = owner
		return nil
	}
}

func defaultConfig() config {
	return config{
		baseDir: filepath.Join(os.TempDir(), "rbx-local"),
		grace:   2 * time.Second,
		owner:   sandbox.Owner,
	}
}
