package docker

import (
	"context"
	"errors"
	"fmt"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/client"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// errNotManaged: a container exists under that id but rbx did not create it,
// so Open and Remove leave it alone.
var errNotManaged = errors.New("not an rbx sandbox")

// engineErr maps engine errors onto the sandbox sentinels at this boundary,
// keeping the engine's message and chain.
func engineErr(err error) error {
	switch {
	case err == nil:
		return nil
	case cerrdefs.IsNotFound(err):
		return fmt.Errorf("%w: %w", sandbox.ErrNotFound, err)
	case client.IsErrConnectionFailed(err):
		return fmt.Errorf("%w: %w", sandbox.ErrUnavailable, err)
	}
	return err
}

// gone explains err: when the container no longer runs the failure is
// reported as sandbox.ErrSandboxGone, otherwise err is returned translated.
// The engine records a container's death a moment after its processes die,
// so the check is repeated briefly; this runs on error paths only.
func (s *Sandbox) gone(ctx context.Context, err error) error {
	if gerr := s.settledGone(context.WithoutCancel(ctx), 4); gerr != nil {
		return gerr
	}
	return engineErr(err)
}

// settledGone calls checkRunning up to tries times, 25ms, 50ms... apart.
func (s *Sandbox) settledGone(ctx context.Context, tries int) error {
	for i := 0; i < tries; i++ {
		if i > 0 {
			time.Sleep(time.Duration(i) * 25 * time.Millisecond)
		}
		if err := s.checkRunning(ctx); err != nil {
			return err
		}
	}
	return nil
}

// checkRunning returns an error wrapping sandbox.ErrSandboxGone when the
// container was removed or stopped underneath us.
func (s *Sandbox) checkRunning(ctx context.Context) error {
	s.connMu.Lock()
	removed := s.removed
	s.connMu.Unlock()
	if removed {
		return fmt.Errorf("sandbox %s: %w: removed", s.id, sandbox.ErrSandboxGone)
	}
	info, err := s.rt.cli.ContainerInspect(ctx, s.id)
	switch {
	case cerrdefs.IsNotFound(err):
		return fmt.Errorf("sandbox %s: %w: removed", s.id, sandbox.ErrSandboxGone)
	case err != nil:
		return nil // cannot tell; the caller reports its own error
	case info.State == nil || !info.State.Running:
		status := "stopped"
		if info.State != nil {
			status = info.State.Status
		}
		return fmt.Errorf("sandbox %s: %w: %s", s.id, sandbox.ErrSandboxGone, status)
	}
	return nil
}
