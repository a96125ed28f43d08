// Package replayer resets an environment to checkpoint k of a trajectory by
// re-executing its steps [0, k) in a sandbox and checking each live
// observation against the recorded one (docs/prefilter.md).
package replayer

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// Sandbox is what the replayer needs of a sandbox.
type Sandbox interface {
	Exec(ctx context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error)
	WriteFile(ctx context.Context, path string, data []byte, mode fs.FileMode) error
	ReadFile(ctx context.Context, path string) ([]byte, error)
}

// Replayer executes trajectory steps. It is safe for concurrent use; each
// replay keeps its own state in a Run.
type Replayer struct {
	compare  Comparison
	services map[string]string
	http     *retryablehttp.Client
	log      *slog.Logger
	onStep   func(StepResult)
	excerpt  int
}

// Option configures a Replayer.
type Option func(*Replayer) error

// WithCompare sets the output comparison for steps that do not set
// their own (default CompareNormalized).
func WithCompare(p Comparison) Option {
	return func(r *Replayer) error {
		if !p.Valid() {
			return fmt.Errorf("compare %q: expected exact, normalized, normalized_hex or ignore", p)
		}
		r.compare = p
		return nil
	}
}

// WithServices overrides task service URLs by name (default: none; the
// task's own URLs are used). Tests and demos that start a service on a
// random port use it.
func WithServices(m map[string]string) Option {
	return func(r *Replayer) error { r.services = m; return nil }
}

// WithHTTPClient replaces the HTTP client used by http steps (default: 3
// retries, 100 ms–2 s backoff, 30 s per attempt). New installs on c the
// allow-list check of redirects (its HTTPClient's CheckRedirect) and the
// rule that requests which must not be repeated are not retried (wrapping
// its CheckRetry), so c should not be shared with other uses.
func WithHTTPClient(c *retryablehttp.Client) Option {
	return func(r *Replayer) error { r.http = c; return nil }
}

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option { return func(r *Replayer) error { r.log = l; return nil } }

// WithStepHook is called after every step, for progress output (default: none).
func WithStepHook(f func(StepResult)) Option {
	return func(r *Replayer) error { r.onStep = f; return nil }
}

// WithExcerpt sets how many bytes of each step's live output a report
// keeps (default 2048, the end of the output, where errors usually are).
// Servers that hand observations to a policy keep more.
func WithExcerpt(n int) Option {
	return func(r *Replayer) error {
		if n < 1 {
			return fmt.Errorf("excerpt %d: expected ≥ 1 byte", n)
		}
		r.excerpt = n
		return nil
	}
}

// New returns a Replayer.
func New(opts ...Option) (*Replayer, error) {
	r := &Replayer{compare: CompareNormalized, log: slog.New(slog.NewTextHandler(io.Discard, nil)), excerpt: 2048}
	for _, o := range opts {
		if err := o(r); err != nil {
			return nil, err
		}
	}
	if r.http == nil {
		r.http = defaultHTTPClient(r.log)
	}
	guard(r.http)
	return r, nil
}
