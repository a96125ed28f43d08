package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// errNotManaged: a container exists under that id but rbx did not create it,
// so Open and Remove leave it alone.
var errNotManaged = errors.New("not an rbx sandbox")

// engineErr maps engine errors onto the sandbox sentinels at this boundary,
// keeping the engine's message and chain.
func engineErr(err error) error { return sandbox.EngineErr(err, cerrdefs.IsNotFound, connLost) }

// connLost reports whether err means the engine cannot be reached or hung up:
// the client marks failed requests, but a hijacked stream (exec attach)
// reports the bare dial error, and a pooled connection the engine closed
// reports EOF or a reset.
func connLost(err error) bool {
	if client.IsErrConnectionFailed(err) {
		return true
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ENOENT) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// gone explains err: when the container no longer runs the failure is
// reported as a *sandbox.GoneError, otherwise err is returned translated.
// An engine that does not answer is sandbox.ErrUnavailable here, not a
// GoneError: nothing of the sandbox was lost by this failed call (a broken
// session reports its loss itself). The engine records a container's death a
// moment after its processes die, so the check is repeated briefly; this
// runs on error paths only.
func (s *Sandbox) gone(ctx context.Context, err error) error {
	gerr := s.settledGone(context.WithoutCancel(ctx), 4)
	var ge *sandbox.GoneError
	switch {
	case gerr == nil:
		return engineErr(err)
	case !errors.As(gerr, &ge) || ge.Cause != sandbox.CauseEngineUnavailable:
		return gerr
	case errors.Is(engineErr(err), sandbox.ErrUnavailable):
		return engineErr(err)
	}
	return fmt.Errorf("%w: %w", sandbox.ErrUnavailable, err)
}

// settledGone calls checkRunning up to tries times, 25ms, 50ms... apart.
func (s *Sandbox) settledGone(ctx context.Context, tries int) error {
	return sandbox.SettledGone(ctx, tries, s.checkRunning)
}

// inspectTimeout bounds the inspection behind an error report, which runs
// even when the caller's context was cancelled.
const inspectTimeout = 5 * time.Second

// checkRunning returns a *sandbox.GoneError when the container was removed
// or stopped underneath us, or the engine no longer answers; nil when it
// runs or its state cannot be told.
func (s *Sandbox) checkRunning(ctx context.Context) error {
	s.connMu.Lock()
	removed := s.removed
	s.connMu.Unlock()
	if removed {
		return &sandbox.GoneError{ID: s.id, Cause: sandbox.CauseRemoved}
	}
	ctx, cancel := context.WithTimeout(ctx, inspectTimeout)
	defer cancel()
	info, err := s.rt.cli.ContainerInspect(ctx, s.id)
	switch {
	case cerrdefs.IsNotFound(err):
		return &sandbox.GoneError{ID: s.id, Cause: sandbox.CauseRemoved}
	case err != nil && connLost(err):
		return &sandbox.GoneError{ID: s.id, Cause: sandbox.CauseEngineUnavailable, Detail: err.Error()}
	case err != nil:
		return nil // cannot tell; the caller reports its own error
	case info.State == nil:
		return &sandbox.GoneError{ID: s.id, Cause: sandbox.CauseExited, Detail: "no state"}
	case info.State.Running && !info.State.Restarting:
		return nil
	}
	return goneFromState(s.id, info.State)
}

// goneFromState names why a container that no longer runs stopped. A forced
// removal marks the container "removing" before it kills it, so a container
// killed by a removal is not reported as killed.
func goneFromState(id string, st *container.State) *sandbox.GoneError {
	e := &sandbox.GoneError{ID: id, ExitCode: st.ExitCode, Detail: st.Error}
	switch {
	case st.Status == "removing" || st.Dead:
		e.Cause = sandbox.CauseRemoved
	case st.OOMKilled:
		e.Cause = sandbox.CauseOOMKilled
	case st.ExitCode > 128:
		e.Cause = sandbox.CauseKilled
	default:
		e.Cause = sandbox.CauseExited
	}
	if e.Detail == "" && e.Cause != sandbox.CauseRemoved {
		e.Detail = st.Status
	}
	return e
}
