package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// errNotManaged: a pod exists under that name but rbx did not create it,
// so Open and Remove leave it alone.
var errNotManaged = errors.New("not an rbx sandbox")

// inspectTimeout bounds the inspection behind an error report, which runs
// even when the caller's context was cancelled.
const inspectTimeout = 5 * time.Second

// apiErr maps API errors onto the sandbox sentinels, keeping the chain.
func apiErr(err error) error { return sandbox.EngineErr(err, apierrors.IsNotFound, connLost) }

// connLost reports whether err means the API server cannot be reached.
func connLost(err error) bool {
	var ne net.Error
	var oe *net.OpError
	return errors.As(err, &oe) || errors.As(err, &ne) && ne.Timeout() ||
		apierrors.IsServiceUnavailable(err) || apierrors.IsServerTimeout(err)
}

// gone explains err: when the pod no longer runs the failure is reported
// as a *sandbox.GoneError, otherwise err is returned translated.
func (s *Sandbox) gone(ctx context.Context, err error) error {
	if gerr := s.checkRunning(context.WithoutCancel(ctx)); gerr != nil {
		return gerr
	}
	return apiErr(err)
}

// checkRunning returns a *sandbox.GoneError when the pod was removed or its
// container stopped underneath us, or the API no longer answers; nil when
// it runs or its state cannot be told.
func (s *Sandbox) checkRunning(ctx context.Context) error {
	s.mu.Lock()
	removed := s.removed
	s.mu.Unlock()
	if removed {
		return &sandbox.GoneError{ID: s.id, Cause: sandbox.CauseRemoved}
	}
	ctx, cancel := context.WithTimeout(ctx, inspectTimeout)
	defer cancel()
	p, err := s.rt.cs.CoreV1().Pods(s.rt.namespace).Get(ctx, s.id, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return &sandbox.GoneError{ID: s.id, Cause: sandbox.CauseRemoved}
	case err != nil && connLost(err):
		return &sandbox.GoneError{ID: s.id, Cause: sandbox.CauseEngineUnavailable, Detail: err.Error()}
	case err != nil:
		return nil
	}
	if gerr := podGone(p); gerr != nil || s.rt.cfg.runtimeClass == "" {
		return gerr
	}
	return s.probeStopped(ctx)
}

// probeStopped asks the pod itself whether it still runs, for pods of a
// RuntimeClass (gVisor): there one process past the memory limit ends the
// pod's whole sandbox, and the status still says Running until the
// kubelet's next relist, while the step that died reports only a broken
// exec. A pod that cannot start an exec is gone.
func (s *Sandbox) probeStopped(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, inspectTimeout)
	defer cancel()
	_, code, err := s.runShort(ctx, "true", nil, nil)
	switch {
	case err != nil && ctx.Err() == nil:
		return &sandbox.GoneError{ID: s.id, Cause: sandbox.CauseExited, Detail: "the pod's sandbox no longer runs: " + err.Error()}
	case err == nil && code != 0:
		return &sandbox.GoneError{ID: s.id, Cause: sandbox.CauseExited, Detail: fmt.Sprintf("the pod's sandbox no longer runs: an exec of true exited %d", code)}
	}
	return nil
}

// podGone returns the *sandbox.GoneError that p's status shows, or nil
// while its sandbox container runs (or has not started).
func podGone(p *corev1.Pod) error {
	if p.DeletionTimestamp != nil {
		return &sandbox.GoneError{ID: p.Name, Cause: sandbox.CauseRemoved}
	}
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name != containerName || cs.State.Terminated == nil {
			continue
		}
		t := cs.State.Terminated
		e := &sandbox.GoneError{ID: p.Name, ExitCode: int(t.ExitCode), Detail: t.Reason, Cause: sandbox.CauseExited}
		switch {
		case t.Reason == "OOMKilled":
			e.Cause = sandbox.CauseOOMKilled
		case t.ExitCode > 128:
			e.Cause = sandbox.CauseKilled
		}
		return e
	}
	if p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded {
		return &sandbox.GoneError{ID: p.Name, Cause: sandbox.CauseExited, Detail: p.Status.Reason + " " + p.Status.Message}
	}
	return nil
}
