package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/rbx-sandbox/rbx/sandbox"
)

var _ sandbox.Sandbox = (*Sandbox)(nil)

// Sandbox is one private directory and, in session mode, its shell process.
type Sandbox struct {
	rt      *Runtime
	id      string
	dir     string // <base>/<name>: metadata and root/
	root    string // <dir>/root: stands in for "/"
	workdir string // host path of the workdir
	meta    meta
	env     []string

	mu      sync.Mutex
	shell   *shellProc
	removed bool
	// lost is set once the session shell ended; session steps fail with it
	// until Reopen.
	lost *sandbox.SessionLostError
}

func (r *Runtime) newSandbox(dir string, m meta) (*Sandbox, error) {
	root := filepath.Join(dir, "root")
	rel, err := relPath(m.Workdir, "/")
	if err != nil {
		return nil, fmt.Errorf("workdir: %w", err)
	}
	sb := &Sandbox{rt: r, id: m.ID, dir: dir, root: root, workdir: filepath.Join(root, rel), meta: m}
	sb.env = baseEnv(root, m.Env)
	return sb, nil
}

// baseEnv is the clean environment every command starts from.
func baseEnv(root string, specEnv map[string]string) []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	}
	env := []string{
		"PATH=" + path,
		"HOME=" + filepath.Join(root, "root"),
		"TMPDIR=" + filepath.Join(root, "tmp"),
		"LANG=C.UTF-8",
	}
	keys := make([]string, 0, len(specEnv))
	for k := range specEnv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+specEnv[k])
	}
	// Last, so Spec.Env cannot hide the sandbox's processes from Remove.
	return append(env, rootEnv(root))
}

func rootEnv(root string) string { return "RBX_ROOT=" + root }

// ulimits are the limits of the sandbox's shells.
func (s *Sandbox) ulimits() ulimits { return ulimits{fsize: s.meta.FileSize, nofile: s.meta.NoFile} }

// ID returns "local-<name>".
func (s *Sandbox) ID() string { return s.id }

// Root returns the host directory that stands in for the sandbox's "/".
func (s *Sandbox) Root() string { return s.root }

// alive returns a *sandbox.GoneError (cause "removed", wrapping
// sandbox.ErrSandboxGone) once the sandbox was removed, here or by another
// runtime.
func (s *Sandbox) alive() error {
	s.mu.Lock()
	removed := s.removed
	s.mu.Unlock()
	if removed {
		return s.gone("removed by this process")
	}
	if _, err := os.Lstat(s.root); errors.Is(err, fs.ErrNotExist) {
		return s.gone("its directory is gone")
	}
	return nil
}

func (s *Sandbox) gone(detail string) error {
	return &sandbox.GoneError{ID: s.id, Cause: sandbox.CauseRemoved, Detail: detail}
}

// Remove kills the session shell and every process carrying this sandbox's
// RBX_ROOT, then deletes the directory. It is idempotent.
func (s *Sandbox) Remove(ctx context.Context) error {
	s.mu.Lock()
	s.removed = true
	sh := s.shell
	s.shell = nil
	s.mu.Unlock()
	s.rt.forget(s.id)
	if err := destroy(s.dir, sh); err != nil {
		return fmt.Errorf("remove sandbox %q: %w", s.id, err)
	}
	return nil
}

// stopSession ends the session shell, keeping the directory.
func (s *Sandbox) stopSession() {
	s.mu.Lock()
	sh := s.shell
	s.shell = nil
	s.mu.Unlock()
	if sh != nil {
		sh.stop()
	}
}

// destroy kills what runs in dir's sandbox and deletes dir; sh may be nil.
func destroy(dir string, sh *shellProc) error {
	if sh != nil {
		sh.stop()
	}
	killByEnv(rootEnv(filepath.Join(dir, "root")))
	return forceRemoveAll(dir)
}

// forceRemoveAll deletes dir even when commands left read-only directories
// in it.
func forceRemoveAll(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("delete %s: %w", dir, err)
	}
	return nil
}
