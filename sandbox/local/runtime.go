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

var _ sandbox.Runtime = (*Runtime)(nil)

// Runtime creates sandboxes as private directories on the host. It is safe
// for concurrent use.
type Runtime struct {
	cfg   config
	shell string // the exec-mode shell: bash where present, /bin/sh otherwise

	mu   sync.Mutex
	live map[string]*Sandbox // sandboxes this runtime holds a session for
}

// New returns a local Runtime. It does not touch the filesystem until the
// first sandbox is created.
func New(opts ...Option) (*Runtime, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, fmt.Errorf("local runtime: %w", err)
		}
	}
	return &Runtime{cfg: cfg, shell: execShell(), live: map[string]*Sandbox{}}, nil
}

// Name returns "local".
func (r *Runtime) Name() string { return "local" }

// Open attaches to a sandbox directory by id. A sandbox this runtime created
// is returned as is; one created elsewhere gets a fresh session shell on its
// first session-mode command.
func (r *Runtime) Open(ctx context.Context, id string) (sandbox.Sandbox, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("open sandbox %q: %w", id, err)
	}
	r.mu.Lock()
	sb, ok := r.live[id]
	r.mu.Unlock()
	if ok {
		return sb, nil
	}
	dir, err := r.dirOf(id)
	if err != nil {
		return nil, fmt.Errorf("open sandbox: %w", err)
	}
	m, err := readMeta(dir)
	if err != nil {
		return nil, fmt.Errorf("open sandbox %q: %w", id, err)
	}
	sb, err = r.newSandbox(dir, m)
	if err != nil {
		return nil, fmt.Errorf("open sandbox %q: %w", id, err)
	}
	return r.track(sb), nil
}

// List returns the sandboxes under the base directory whose labels include
// every pair in selector, oldest first.
func (r *Runtime) List(ctx context.Context, selector map[string]string) ([]sandbox.Info, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("list sandboxes: %w", err)
	}
	entries, err := os.ReadDir(r.cfg.baseDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sandboxes: %w", err)
	}
	var infos []sandbox.Info
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		m, err := readMeta(filepath.Join(r.cfg.baseDir, e.Name()))
		if err != nil || idPrefix+e.Name() != m.ID {
			continue // being created or removed, or not ours
		}
		if !labelsMatch(m.Labels, selector) {
			continue
		}
		infos = append(infos, sandbox.Info{
			ID: m.ID, Name: e.Name(), Image: m.Image, State: "ready",
			Labels: m.Labels, Annotations: m.Annotations, Created: m.Created,
		})
	}
	sort.Slice(infos, func(i, j int) bool { return infos[i].Created.Before(infos[j].Created) })
	return infos, nil
}

// Remove kills every process of the sandbox and deletes its directory,
// whichever runtime created it. An unknown id returns an error wrapping
// sandbox.ErrNotFound.
func (r *Runtime) Remove(ctx context.Context, id string) error {
	dir, err := r.dirOf(id)
	if err != nil {
		return fmt.Errorf("remove sandbox: %w", err)
	}
	r.mu.Lock()
	sb, ok := r.live[id]
	r.mu.Unlock()
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		if ok {
			r.forget(id)
		}
		return fmt.Errorf("remove sandbox %q: %w", id, sandbox.ErrNotFound)
	}
	if ok {
		return sb.Remove(ctx)
	}
	if err := destroy(dir, nil); err != nil {
		return fmt.Errorf("remove sandbox %q: %w", id, err)
	}
	return nil
}

// Close ends the session shells this runtime started (with their background
// jobs). Sandbox directories remain, for Open or Remove.
func (r *Runtime) Close() error {
	r.mu.Lock()
	live := r.live
	r.live = map[string]*Sandbox{}
	r.mu.Unlock()
	for _, sb := range live {
		sb.stopSession()
	}
	return nil
}

func (r *Runtime) track(sb *Sandbox) *Sandbox {
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.live[sb.id]; ok {
		return old // a concurrent Open won
	}
	r.live[sb.id] = sb
	return sb
}

func (r *Runtime) forget(id string) {
	r.mu.Lock()
	delete(r.live, id)
	r.mu.Unlock()
}
