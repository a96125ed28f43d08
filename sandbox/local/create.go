package local

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// Create makes a private sandbox directory with the workdir, HOME and TMPDIR
// inside its root, and in session mode starts the session shell. On failure
// it removes the directory and returns the error.
func (r *Runtime) Create(ctx context.Context, spec sandbox.Spec) (_ sandbox.Sandbox, err error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("create sandbox: %w", err)
	}
	if err := sandbox.RefuseRecycle("local", spec); err != nil {
		return nil, fmt.Errorf("create sandbox: %w", err)
	}
	if _, err := relPath(spec.Workdir, "/"); err != nil {
		return nil, fmt.Errorf("create sandbox: %w: workdir: %w", sandbox.ErrInvalidSpec, err)
	}
	if err := os.MkdirAll(r.cfg.baseDir, 0o700); err != nil {
		return nil, fmt.Errorf("create sandbox: base dir: %w", err)
	}
	dir, err := os.MkdirTemp(r.cfg.baseDir, "")
	if err != nil {
		return nil, fmt.Errorf("create sandbox: %w", err)
	}
	id := idPrefix + filepath.Base(dir)
	defer func() {
		if err != nil {
			r.forget(id)
			_ = destroy(dir, nil)
		}
	}()
	m := metaFromSpec(id, r.cfg.owner, spec)
	root := filepath.Join(dir, "root")
	for _, d := range []string{spec.Workdir, "/root", "/tmp"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(d)), 0o755); err != nil {
			return nil, fmt.Errorf("create sandbox %q: %w", id, err)
		}
	}
	if err := os.Chmod(filepath.Join(root, "tmp"), 0o1777); err != nil {
		return nil, fmt.Errorf("create sandbox %q: %w", id, err)
	}
	if err := writeMeta(dir, m); err != nil {
		return nil, fmt.Errorf("create sandbox %q: %w", id, err)
	}
	sb, err := r.newSandbox(dir, m)
	if err != nil {
		return nil, fmt.Errorf("create sandbox %q: %w", id, err)
	}
	r.track(sb)
	if m.Mode == sandbox.ModeSession {
		if _, err := sb.session(ctx); err != nil {
			return nil, fmt.Errorf("create sandbox %q: %w", id, err)
		}
	}
	return sb, nil
}
