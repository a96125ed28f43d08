package containerd

import (
	"context"
	"errors"
	"time"

	"github.com/containerd/containerd/v2/client"
	cerrdefs "github.com/containerd/errdefs"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// errNotManaged: a container exists under that id but rbx did not create
// it, so Open and Remove leave it alone.
var errNotManaged = errors.New("not an rbx sandbox")

// engineErr maps containerd errors onto the sandbox sentinels at this
// boundary, keeping the message and chain.
func engineErr(err error) error { return sandbox.EngineErr(err, cerrdefs.IsNotFound, connLost) }

// connLost reports whether err means containerd cannot be reached.
func connLost(err error) bool {
	if cerrdefs.IsUnavailable(err) {
		return true
	}
	st, ok := status.FromError(errors.Unwrap(err))
	if !ok {
		st, ok = status.FromError(err)
	}
	return ok && st.Code() == codes.Unavailable
}

// inspectTimeout bounds the inspection behind an error report, which runs
// even when the caller's context was cancelled.
const inspectTimeout = 5 * time.Second

// gone explains err: when the container no longer runs the failure is
// reported as a *sandbox.GoneError, otherwise err is returned translated.
func (s *Sandbox) gone(ctx context.Context, err error) error {
	if gerr := s.settledGone(context.WithoutCancel(ctx), 4); gerr != nil {
		var ge *sandbox.GoneError
		if errors.As(gerr, &ge) && ge.Cause == sandbox.CauseEngineUnavailable && errors.Is(engineErr(err), sandbox.ErrUnavailable) {
			return engineErr(err)
		}
		return gerr
	}
	return engineErr(err)
}

// settledGone calls checkRunning up to tries times, 25ms, 50ms... apart:
// the task's exit is recorded a moment after its processes die.
func (s *Sandbox) settledGone(ctx context.Context, tries int) error {
	return sandbox.SettledGone(ctx, tries, s.checkRunning)
}

// checkRunning returns a *sandbox.GoneError when the container was removed
// or its task stopped underneath us, or containerd no longer answers; nil
// when it runs or its state cannot be told.
func (s *Sandbox) checkRunning(ctx context.Context) error {
	s.mu.Lock()
	removed := s.removed
	s.mu.Unlock()
	if removed {
		return &sandbox.GoneError{ID: s.id, Cause: sandbox.CauseRemoved}
	}
	ctx, cancel := context.WithTimeout(s.rt.ctx(ctx), inspectTimeout)
	defer cancel()
	st, err := s.task.Status(ctx)
	switch {
	case cerrdefs.IsNotFound(err):
		return &sandbox.GoneError{ID: s.id, Cause: sandbox.CauseRemoved}
	case err != nil && connLost(err):
		return &sandbox.GoneError{ID: s.id, Cause: sandbox.CauseEngineUnavailable, Detail: err.Error()}
	case err != nil:
		return nil
	case st.Status == client.Running || st.Status == client.Created || st.Status == client.Paused:
		return nil
	}
	e := &sandbox.GoneError{ID: s.id, ExitCode: int(st.ExitStatus), Detail: string(st.Status)}
	labels, err := s.container.Labels(ctx)
	switch {
	case cerrdefs.IsNotFound(err) || labels[labelRemoving] == "true":
		return &sandbox.GoneError{ID: s.id, Cause: sandbox.CauseRemoved}
	case st.ExitStatus == exitSIGKILL && s.oomCount(ctx) > 0:
		e.Cause = sandbox.CauseOOMKilled
	case st.ExitStatus > 128:
		e.Cause = sandbox.CauseKilled
	default:
		e.Cause = sandbox.CauseExited
	}
	return e
}
