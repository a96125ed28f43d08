package kubernetes

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
)

// Why an Event gates the first exec. An exec into a container the kubelet
// has not started yet fails ("unable to upgrade connection: container not
// found"), and kube-apiserver (1.34, measured on the test cluster: five
// such execs, five more sockets) keeps its connection to the kubelet open
// after that failure: probing a starting pod every 100 ms leaked some ten
// sockets per cold pod, and after a few thousand pods the API server ran
// out of file descriptors. The kubelet records a Started event as soon as
// it started a container, without waiting for the status relist, so the
// probes begin once the sandbox container's event is seen (or the status
// says it runs): every exec then finds the container.

// watchStartedEvent calls started once an Event says the kubelet started
// pod name's sandbox container, or returns when ctx ends. A namespace
// whose events rbx may not read (RBAC: events get, list, watch) falls back
// on the status relist: slower, never wrong.
func (r *Runtime) watchStartedEvent(ctx context.Context, name string, started func()) {
	evs := r.cs.CoreV1().Events(r.namespace)
	sel := fields.Set{"involvedObject.name": name, "reason": "Started"}.AsSelector().String()
	list, err := evs.List(ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		r.cfg.log.Debug("events of a starting pod: waiting for its status instead", "pod", name, "err", err)
		return
	}
	if sandboxStarted(name, list.Items...) {
		started()
		return
	}
	w, err := evs.Watch(ctx, metav1.ListOptions{FieldSelector: sel, ResourceVersion: list.ResourceVersion})
	if err != nil {
		r.cfg.log.Debug("events of a starting pod: waiting for its status instead", "pod", name, "err", err)
		return
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.ResultChan():
			if !ok {
				return // the watch ended: the status wait remains
			}
			if e, isEvent := ev.Object.(*corev1.Event); isEvent && sandboxStarted(name, *e) {
				started()
				return
			}
		}
	}
}

// sandboxStarted reports whether one of evs is the kubelet's Started event
// of pod's sandbox container (not the tools sidecar's).
func sandboxStarted(pod string, evs ...corev1.Event) bool {
	for _, e := range evs {
		if e.Reason == "Started" && e.InvolvedObject.Name == pod && e.InvolvedObject.FieldPath == "spec.containers{"+containerName+"}" {
			return true
		}
	}
	return false
}

// startedNow reports whether pod p's sandbox container has started, by
// its status or, when the status is behind, by the kubelet's Started event
// (one List): Open probes a pending pod only then, for the socket an exec
// into a container not started yet would leak. Events rbx may not read
// leave the status alone to decide.
func (r *Runtime) startedNow(ctx context.Context, p *corev1.Pod) bool {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name == containerName && cs.State.Running != nil {
			return true
		}
	}
	sel := fields.Set{"involvedObject.name": p.Name, "reason": "Started"}.AsSelector().String()
	list, err := r.cs.CoreV1().Events(r.namespace).List(ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		r.cfg.log.Debug("events of a pending pod: its status alone decides", "pod", p.Name, "err", err)
		return false
	}
	return sandboxStarted(p.Name, list.Items...)
}
