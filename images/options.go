package images

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
)

// DefaultMirror is the Debian mirror debootstrap downloads from.
const DefaultMirror = "http://deb.debian.org/debian"

type config struct {
	log      *slog.Logger
	progress io.Writer
	cacheDir string
	mirror   string
}

// Option configures a Builder.
type Option func(*config) error

// WithLogger sets the structured logger. Default: discard.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		if l == nil {
			return errors.New("logger is nil")
		}
		c.log = l
		return nil
	}
}

// WithProgress sets where one-line status messages go (typically stderr).
// Default: discard.
func WithProgress(w io.Writer) Option {
	return func(c *config) error {
		if w == nil {
			return errors.New("progress writer is nil")
		}
		c.progress = w
		return nil
	}
}

// WithCacheDir sets the directory for cached rootfs tarballs and build
// scratch space. Default: $XDG_CACHE_HOME/rbx, else ~/.cache/rbx.
func WithCacheDir(dir string) Option {
	return func(c *config) error {
		if dir == "" {
			return errors.New("cache dir is empty")
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return fmt.Errorf("cache dir %q: %w", dir, err)
		}
		c.cacheDir = abs
		return nil
	}
}

// WithMirror sets the Debian mirror URL. Default: DefaultMirror.
func WithMirror(mirror string) Option {
	return func(c *config) error {
		u, err := url.Parse(mirror)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("mirror %q: want an http(s) URL", mirror)
		}
		c.mirror = mirror
		return nil
	}
}

func defaultCacheDir() (string, error) {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "rbx"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find cache dir: %w", err)
	}
	return filepath.Join(home, ".cache", "rbx"), nil
}
