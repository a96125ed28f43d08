package local

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// WriteFiles writes each file directly under the root (never through the
// session shell), stopping at the first failure: a temporary file renamed
// over the target, so a symlink a step planted there is replaced, not
// followed (rbx's own files: task files, the verifier's). Mode 0 means
// 0644, as in the docker backend, whatever an existing file's mode.
func (s *Sandbox) WriteFiles(ctx context.Context, files []sandbox.File) error {
	for _, f := range files {
		mode := f.Mode.Perm()
		if mode == 0 {
			mode = 0o644
		}
		if err := s.replaceFile(ctx, f.Path, f.Data, mode); err != nil {
			return fmt.Errorf("write %q in sandbox %q: %w", f.Path, s.id, err)
		}
	}
	return nil
}

// replaceFile writes data at p through a temporary file renamed into
// place, creating parent directories.
func (s *Sandbox) replaceFile(ctx context.Context, p string, data []byte, mode fs.FileMode) error {
	r, rel, err := s.open(ctx, p)
	if err != nil {
		return err
	}
	defer r.Close()
	abs := sandbox.ResolvePath(s.meta.Workdir, p)
	dir := path.Dir(rel)
	if err := r.MkdirAll(dir, 0o755); err != nil {
		return classify("mkdir", path.Dir(abs), err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	tmp := path.Join(dir, ".rbx-write-"+hex.EncodeToString(b[:]))
	forkMu.Lock()
	err = r.WriteFile(tmp, data, 0o600)
	forkMu.Unlock()
	if err != nil {
		return classify("write", abs, err)
	}
	// Chmod after the write: the umask must not change the requested mode.
	if err := r.Chmod(tmp, mode); err != nil {
		_ = r.Remove(tmp)
		return classify("chmod", abs, err)
	}
	if err := r.Rename(tmp, rel); err != nil {
		_ = r.Remove(tmp)
		return classify("write", abs, err)
	}
	return nil
}
