package kubernetes

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rbx-sandbox/rbx/sandbox"
)

var _ sandbox.Prober = (*Sandbox)(nil)

// Probe implements sandbox.Prober from the pod's status as the API
// server has it: deleted or being deleted, its sandbox container
// terminated and why. It never execs in the pod. A pod has no pause
// state and its process count is not in its status: a node that stopped
// answering shows as a call past rbx's deadline, pids exhaustion by the
// error's words.
func (s *Sandbox) Probe(ctx context.Context) (sandbox.Health, error) {
	s.mu.Lock()
	removed := s.removed
	s.mu.Unlock()
	if removed {
		return sandbox.Health{Gone: &sandbox.GoneError{ID: s.id, Cause: sandbox.CauseRemoved}}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, inspectTimeout)
	defer cancel()
	p, err := s.rt.cs.CoreV1().Pods(s.rt.namespace).Get(ctx, s.id, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return sandbox.Health{Gone: &sandbox.GoneError{ID: s.id, Cause: sandbox.CauseRemoved}}, nil
	case err != nil && connLost(err):
		return sandbox.Health{Gone: &sandbox.GoneError{ID: s.id, Cause: sandbox.CauseEngineUnavailable, Detail: err.Error()}}, nil
	case err != nil:
		return sandbox.Health{}, fmt.Errorf("probe sandbox %s: %w", s.id, err)
	}
	if gerr := podGone(p); gerr != nil {
		if ge, ok := gerr.(*sandbox.GoneError); ok {
			return sandbox.Health{Gone: ge}, nil
		}
	}
	return sandbox.Health{}, nil
}
