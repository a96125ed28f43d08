package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"syscall"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// relPath maps p (absolute, or relative to workdir) to a slash-separated path
// relative to the sandbox root, refusing any ".." that climbs above the root.
// Symbolic links are left to os.Root, which refuses those leading outside.
func relPath(p, workdir string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("%w: empty path", sandbox.ErrInvalidSpec)
	}
	full := p
	if !path.IsAbs(p) {
		full = workdir + "/" + p
	}
	depth := 0
	for _, c := range strings.Split(full, "/") {
		switch c {
		case "", ".":
		case "..":
			if depth == 0 {
				return "", fmt.Errorf("%w: %q", sandbox.ErrPathEscape, p)
			}
			depth--
		default:
			depth++
		}
	}
	// Not cleaned: os.Root must see "link/.." to resolve it through the link.
	if rel := strings.TrimLeft(full, "/"); rel != "" {
		return rel, nil
	}
	return ".", nil
}

// WriteFile writes data at p in place, as a shell redirection does
// (an existing file keeps its owner, a symlink inside the root is
// followed), creating parent directories; mode 0 keeps an existing
// file's mode and means 0644 for a new file. The actions run as the
// rbx process's user, the user every command of the sandbox runs as: a
// refusal is a *sandbox.FileError, as on the container backends.
func (s *Sandbox) WriteFile(ctx context.Context, p string, data []byte, mode fs.FileMode) error {
	if err := s.writeFile(ctx, p, data, mode); err != nil {
		if sandbox.IsFileRefused(err) {
			return err
		}
		return fmt.Errorf("write %q in sandbox %q: %w", p, s.id, err)
	}
	return nil
}

func (s *Sandbox) writeFile(ctx context.Context, p string, data []byte, mode fs.FileMode) error {
	r, rel, err := s.open(ctx, p)
	if err != nil {
		return err
	}
	defer r.Close()
	abs := sandbox.ResolvePath(s.meta.Workdir, p)
	// Only a missing parent is made: one that is a file must fail the
	// write as ENOTDIR, as a shell's redirection does, not MkdirAll.
	if dir := path.Dir(rel); dir != "." {
		if _, err := r.Stat(dir); err != nil {
			if err := r.MkdirAll(dir, 0o755); err != nil {
				return classify("mkdir", path.Dir(abs), err)
			}
		}
	}
	_, statErr := r.Stat(rel)
	if mode != 0 && statErr == nil {
		// An existing file's mode first: a refused chmod writes nothing.
		if err := r.Chmod(rel, mode.Perm()); err != nil {
			return classify("chmod", abs, err)
		}
	}
	forkMu.Lock()
	err = writeIn(r, rel, data)
	forkMu.Unlock()
	if err != nil {
		return classify("write", abs, err)
	}
	if statErr != nil {
		// A new file: its mode after the write, so that the umask does not
		// narrow it (0644 when none is given).
		m := mode.Perm()
		if m == 0 {
			m = 0o644
		}
		if err := r.Chmod(rel, m); err != nil {
			return classify("chmod", abs, err)
		}
	}
	return nil
}

// writeIn truncates or creates rel under r (0644 before the umask) and
// writes data.
func writeIn(r *os.Root, rel string, data []byte) error {
	f, err := r.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	return errors.Join(err, f.Close())
}

// ReadFile returns the content at p; a missing file is sandbox.ErrNotFound.
func (s *Sandbox) ReadFile(ctx context.Context, p string) ([]byte, error) {
	r, rel, err := s.open(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("read %q in sandbox %q: %w", p, s.id, err)
	}
	defer r.Close()
	data, err := r.ReadFile(rel)
	if err != nil {
		return nil, classify("read", sandbox.ResolvePath(s.meta.Workdir, p), err)
	}
	return data, nil
}

// open checks p and opens the sandbox root for one file action.
func (s *Sandbox) open(ctx context.Context, p string) (*os.Root, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	if err := s.alive(); err != nil {
		return nil, "", err
	}
	rel, err := relPath(p, s.meta.Workdir)
	if err != nil {
		return nil, "", err
	}
	r, err := os.OpenRoot(s.root)
	if err != nil {
		return nil, "", fmt.Errorf("open root: %w", err)
	}
	return r, rel, nil
}

// classify turns an os.Root error of op on p (the sandbox's path) into
// the sandbox's: the kernel's refusal a *sandbox.FileError, a path
// leaving the root sandbox.ErrPathEscape.
func classify(op, p string, err error) error {
	if isEscape(err) {
		return fmt.Errorf("%s %s: %w: %w", op, p, sandbox.ErrPathEscape, err)
	}
	if errno, ok := errors.AsType[syscall.Errno](err); ok {
		return &sandbox.FileError{Op: op, Path: p, Errno: errno}
	}
	return fmt.Errorf("%s %s: %w", op, p, err)
}

// rootEscape is the error os.Root returns for a path leaving the root. The
// standard library does not export it, so it is obtained once by asking a
// root for "..".
var rootEscape = sync.OnceValue(func() error {
	r, err := os.OpenRoot(os.TempDir())
	if err != nil {
		return nil
	}
	defer r.Close()
	_, err = r.Stat("..")
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
})

func isEscape(err error) bool {
	if esc := rootEscape(); esc != nil && errors.Is(err, esc) {
		return true
	}
	return strings.Contains(err.Error(), "path escapes from parent")
}
