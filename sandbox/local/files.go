package local

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"

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

// WriteFile writes data at p atomically (a temporary file renamed into
// place), creating parent directories; mode 0 keeps an existing file's mode
// and means 0644 for a new file.
func (s *Sandbox) WriteFile(ctx context.Context, p string, data []byte, mode fs.FileMode) error {
	if err := s.writeFile(ctx, p, data, mode); err != nil {
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
	if mode == 0 {
		// Keep an existing file's mode: an edit must not drop the executable bit.
		mode = 0o644
		if st, err := r.Stat(rel); err == nil && st.Mode().IsRegular() {
			mode = st.Mode().Perm()
		}
	}
	dir := path.Dir(rel)
	if err := r.MkdirAll(dir, 0o755); err != nil {
		return classify(err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	tmp := path.Join(dir, ".rbx-write-"+hex.EncodeToString(b[:]))
	forkMu.Lock()
	err = r.WriteFile(tmp, data, 0o600)
	forkMu.Unlock()
	if err != nil {
		return classify(err)
	}
	// Chmod after the write: the umask must not change the requested mode.
	if err := r.Chmod(tmp, mode.Perm()); err != nil {
		_ = r.Remove(tmp)
		return classify(err)
	}
	if err := r.Rename(tmp, rel); err != nil {
		_ = r.Remove(tmp)
		return classify(err)
	}
	return nil
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
		return nil, fmt.Errorf("read %q in sandbox %q: %w", p, s.id, classify(err))
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

// classify adds the sandbox sentinel matching an os.Root error.
func classify(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %w", sandbox.ErrNotFound, err)
	case isEscape(err):
		return fmt.Errorf("%w: %w", sandbox.ErrPathEscape, err)
	}
	return err
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
