package kubernetes

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// Create starts a pod for spec, waits until its sandbox container runs and,
// in session mode, opens its shell. A pod that cannot start (image missing,
// unschedulable, crashing) fails Create with a *StartError as soon as its
// status shows it, and is deleted.
func (r *Runtime) Create(ctx context.Context, spec sandbox.Spec) (_ sandbox.Sandbox, err error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("create sandbox: %w", err)
	}
	if spec.Recycle {
		if err := r.CheckRecycle(spec); err != nil {
			return nil, fmt.Errorf("create sandbox: %w", err)
		}
	}
	if spec.Image == "" {
		return nil, fmt.Errorf("create sandbox: %w: image: empty", sandbox.ErrInvalidSpec)
	}
	if err := r.checkRuntimeClass(ctx); err != nil {
		return nil, fmt.Errorf("create sandbox: %w", err)
	}
	r.beat.Start(ctx) // before the first pod exists, so gc elsewhere sees a live owner
	name := "rbx-" + randomHex(8)
	pod, err := r.podFor(name, spec)
	if err != nil {
		return nil, fmt.Errorf("create sandbox: %w", err)
	}
	r.ownedByPod(ctx, pod) // WithOwnerPod: deleted by the cluster with this process's pod
	if _, err := r.cs.CoreV1().Pods(r.namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		// A cancelled ctx may leave the pod created all the same.
		r.deleteLost(ctx, name)
		return nil, fmt.Errorf("create sandbox from %s: %w", spec.Image, apiErr(err))
	}
	sb := newSandbox(r, name, spec)
	defer func() {
		if err != nil {
			err = fmt.Errorf("create sandbox %s: %w", name, errors.Join(err, sb.Remove(ctx)))
		}
	}()
	if err := sb.start(ctx, spec); err != nil {
		return nil, err
	}
	r.cfg.log.Debug("created sandbox", "id", name, "image", spec.Image, "mode", spec.Mode)
	return sb, nil
}

// deletePod deletes pod name at once (grace period 0, the containers get
// SIGKILL); a pod already gone is not an error.
func (r *Runtime) deletePod(ctx context.Context, name string) error {
	grace := int64(0)
	err := r.cs.CoreV1().Pods(r.namespace).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: &grace})
	if err != nil && !apierrors.IsNotFound(err) {
		return apiErr(err)
	}
	return nil
}

// deleteLost deletes pod name after a failed create, best effort.
func (r *Runtime) deleteLost(ctx context.Context, name string) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	if err := r.deletePod(rctx, name); err != nil {
		r.cfg.log.Warn("delete pod of failed create", "id", name, "err", err)
	}
}
