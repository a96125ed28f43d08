package kubernetes

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// ErrUnschedulable: the scheduler found no node for the pod (resources,
// taints, selectors); the *StartError carries its message.
var ErrUnschedulable = errors.New("pod unschedulable")

// ErrStartTimeout: the pod did not run within the start timeout and its
// status showed no failure.
var ErrStartTimeout = errors.New("pod start timed out")

// StartError is a pod that could not start. errors.Is matches its
// sentinel: sandbox.ErrImageMissing for an image the node does not have
// and may not pull (ErrImageNeverPull, InvalidImageName), that and
// sandbox.ErrPullFailed for a failed pull (ErrImagePull, ImagePullBackOff),
// ErrUnschedulable, sandbox.ErrSandboxGone for a container that exited or
// crashed (CrashLoopBackOff, CreateContainerError...), ErrStartTimeout.
type StartError struct {
	// Pod is the pod's name.
	Pod string
	// Image is the image of the container that failed.
	Image string
	// Reason is the Kubernetes reason (ErrImageNeverPull, Unschedulable...).
	Reason string
	// Message is the kubelet's or the scheduler's own words.
	Message string
	errs    []error
}

// Error names the pod, the reason and the message.
func (e *StartError) Error() string {
	msg := "pod " + e.Pod + " did not start: " + e.Reason
	if e.Image != "" {
		msg += " (image " + e.Image + ")"
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// Unwrap returns the sentinels the reason maps to.
func (e *StartError) Unwrap() []error { return e.errs }

// watchStatus watches pod name until its status shows the sandbox
// container running (nil) or a failure that waiting will not cure,
// calling scheduled with the pod whenever it has a node.
func (r *Runtime) watchStatus(ctx context.Context, name string, scheduled func(*corev1.Pod)) error {
	pods := r.cs.CoreV1().Pods(r.namespace)
	sel := fields.OneTermEqualSelector("metadata.name", name).String()
	seen := func(p *corev1.Pod) (bool, error) {
		if p.Spec.NodeName != "" {
			scheduled(p)
		}
		return started(p)
	}
	for {
		// List then watch from its resourceVersion: no status is missed.
		list, err := pods.List(ctx, metav1.ListOptions{FieldSelector: sel})
		if err != nil {
			return r.startFailed(ctx, name, err)
		}
		if len(list.Items) == 0 {
			return &sandbox.GoneError{ID: name, Cause: sandbox.CauseRemoved}
		}
		if done, err := seen(&list.Items[0]); done {
			return err
		}
		w, err := pods.Watch(ctx, metav1.ListOptions{FieldSelector: sel, ResourceVersion: list.ResourceVersion})
		if err != nil {
			return r.startFailed(ctx, name, err)
		}
		done, err := watchStarted(ctx, w, seen)
		w.Stop()
		if done {
			return err
		}
		if ctx.Err() != nil {
			return r.startFailed(ctx, name, ctx.Err())
		}
		// The watch ended (server timeout): list again.
	}
}

// watchStarted follows w until seen decides the pod's start or it was
// deleted; false when the watch ended first.
func watchStarted(ctx context.Context, w watch.Interface, seen func(*corev1.Pod) (bool, error)) (bool, error) {
	for {
		select {
		case <-ctx.Done():
			return false, nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				return false, nil
			}
			switch ev.Type {
			case watch.Deleted:
				p, _ := ev.Object.(*corev1.Pod)
				name := ""
				if p != nil {
					name = p.Name
				}
				return true, &sandbox.GoneError{ID: name, Cause: sandbox.CauseRemoved}
			case watch.Added, watch.Modified:
				if p, ok := ev.Object.(*corev1.Pod); ok {
					if done, err := seen(p); done {
						return true, err
					}
				}
			}
		}
	}
}

// startFailed reports a wait that ended without a verdict.
func (r *Runtime) startFailed(ctx context.Context, name string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) && context.Cause(ctx) == context.DeadlineExceeded {
		return &StartError{Pod: name, Reason: "Timeout", Message: "not running after " + r.cfg.startTimeout.String(),
			errs: []error{ErrStartTimeout, err}}
	}
	return fmt.Errorf("wait for pod %s: %w", name, apiErr(err))
}

// started reports whether p's start is decided: its sandbox container runs
// (nil), or its status shows a failure that waiting will not cure.
func started(p *corev1.Pod) (bool, error) {
	if p.DeletionTimestamp != nil {
		return true, &sandbox.GoneError{ID: p.Name, Cause: sandbox.CauseRemoved}
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return true, &StartError{Pod: p.Name, Reason: c.Reason, Message: c.Message, errs: []error{ErrUnschedulable}}
		}
	}
	statuses := append(append([]corev1.ContainerStatus(nil), p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...)
	for _, cs := range statuses {
		if w := cs.State.Waiting; w != nil {
			if errs := waitingErrs(w.Reason); errs != nil {
				return true, &StartError{Pod: p.Name, Image: cs.Image, Reason: w.Reason, Message: w.Message, errs: errs}
			}
		}
		t := cs.State.Terminated
		if t != nil && (cs.Name == containerName || t.ExitCode != 0) {
			return true, &StartError{Pod: p.Name, Image: cs.Image, Reason: "Terminated " + t.Reason,
				Message: fmt.Sprintf("container %s exited with %d: %s", cs.Name, t.ExitCode, t.Message),
				errs:    []error{&sandbox.GoneError{ID: p.Name, Cause: sandbox.CauseExited, ExitCode: int(t.ExitCode), Detail: t.Reason}}}
		}
		if cs.Name == containerName && cs.State.Running != nil {
			return true, nil
		}
	}
	if gerr := podGone(p); gerr != nil {
		return true, gerr
	}
	return false, nil
}

// waitingErrs maps a container's waiting reason onto sentinels; nil for
// reasons that pass (ContainerCreating, PodInitializing).
func waitingErrs(reason string) []error {
	switch reason {
	case "ErrImageNeverPull", "InvalidImageName":
		return []error{sandbox.ErrImageMissing}
	case "ErrImagePull", "ImagePullBackOff", "RegistryUnavailable":
		return []error{sandbox.ErrImageMissing, sandbox.ErrPullFailed}
	case "CrashLoopBackOff", "CreateContainerError", "CreateContainerConfigError", "RunContainerError", "PreStartHookError":
		return []error{sandbox.ErrSandboxGone}
	}
	return nil
}
