package recycle

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rbx-sandbox/rbx/recycle/agent"
	"github.com/rbx-sandbox/rbx/sandbox"
)

// State is what a recyclable sandbox keeps from its Create, on the
// backends whose recycle is an agent exec (containerd, Kubernetes): its
// fresh listing and kept files, and whether a recycle failed.
type State struct {
	mu sync.Mutex
	// Fresh is the fresh listing (shared by shape) and the fingerprints
	// of the last proven one; Kept the content of the mount-root files no
	// image holds.
	Fresh *Fresh
	Kept  map[string][]byte
	// broken is set by a failed recycle: the sandbox must be removed.
	broken error
	// prepared is how long the fresh listing took.
	prepared time.Duration
}

// Prepare takes a fresh sandbox's listing through run: as fingerprints
// when b holds a listing of image's shape (ListByFPs), else whole
// (ListWhole). A fresh sandbox runs no process but PID 1 and holds no IPC
// object: anything else fails it.
func (b *Baselines) Prepare(ctx context.Context, run Stream, image string) (*State, error) {
	start := time.Now()
	var fr *Fresh
	var rep agent.Report
	ok := false
	if b.Kept(image) {
		var err error
		if fr, rep, ok, err = b.ListByFPs(ctx, run, image); err != nil {
			return nil, fmt.Errorf("fresh listing: %w", err)
		}
	}
	if !ok {
		var err error
		if fr, rep, err = b.ListWhole(ctx, run, image); err != nil {
			return nil, fmt.Errorf("fresh listing: %w", err)
		}
	}
	if rep.State.Others != 0 || rep.State.IPC != 0 {
		fr.Release()
		return nil, fmt.Errorf("fresh listing: %d processes and %d IPC objects at creation", rep.State.Others, rep.State.IPC)
	}
	return &State{Fresh: fr, Kept: KeptFiles(rep), prepared: time.Since(start)}, nil
}

// Prepared is how long Prepare took (0 for a nil State: a sandbox created
// without Spec.Recycle).
func (s *State) Prepared() time.Duration {
	if s == nil {
		return 0
	}
	return s.prepared
}

// Release gives back the sandbox's share of its fresh listing and refuses
// any later recycle (the sandbox is being removed).
func (s *State) Release() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fresh != nil {
		s.Fresh.Release()
		s.Fresh = nil
	}
	if s.broken == nil {
		s.broken = errors.New("removed")
	}
}

// Recycle runs one recycle of sandbox id: do is the backend's part (the
// agent's talk, the next session shell), which returns the part that
// failed. Recycles of one sandbox run one at a time; one that failed, or a
// sandbox released, refuses every later one (the caller removes it). A nil
// State refuses with sandbox.ErrUnsupported.
func (s *State) Recycle(ctx context.Context, id string, do func(ctx context.Context, rep *sandbox.RecycleReport) (reason string, err error)) (sandbox.RecycleReport, error) {
	start := time.Now()
	if s == nil {
		return sandbox.RecycleReport{}, &sandbox.RecycleError{ID: id, Reason: "spec", Err: fmt.Errorf("%w: created without Spec.Recycle", sandbox.ErrUnsupported)}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken != nil {
		return sandbox.RecycleReport{}, &sandbox.RecycleError{ID: id, Reason: "broken", Err: fmt.Errorf("an earlier recycle failed: %w", s.broken)}
	}
	var rep sandbox.RecycleReport
	if reason, err := do(ctx, &rep); err != nil {
		s.broken = err
		return rep, &sandbox.RecycleError{ID: id, Reason: reason, Err: err}
	}
	rep.Duration = time.Since(start)
	return rep, nil
}

// Shell is the session shell a recycle hangs up and reopens (a
// session.Keeper).
type Shell interface {
	Close()
	Reopen(ctx context.Context) error
}

// RecycleExec is Recycle for the backends whose agent runs in an exec
// (containerd, Kubernetes): the session shell is hung up (it dies with the
// rest), restore runs the agent's recycle, and in session mode a fresh
// shell opens, as at creation.
func (s *State) RecycleExec(ctx context.Context, id string, shell Shell, sessionMode bool, restore func(ctx context.Context, rep *sandbox.RecycleReport) (string, error)) (sandbox.RecycleReport, error) {
	return s.Recycle(ctx, id, func(ctx context.Context, rep *sandbox.RecycleReport) (string, error) {
		shell.Close()
		if reason, err := restore(ctx, rep); err != nil {
			return reason, err
		}
		if sessionMode {
			if err := shell.Reopen(ctx); err != nil {
				return "session", err
			}
		}
		return "", nil
	})
}
