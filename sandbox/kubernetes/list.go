package kubernetes

import (
	"context"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// Open attaches to a running rbx pod by name. Its mode, workdir and limits
// come from the labels and annotations Create set; a session shell is
// opened on first use.
func (r *Runtime) Open(ctx context.Context, id string) (sandbox.Sandbox, error) {
	p, err := r.managed(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("open sandbox %s: %w", id, err)
	}
	if err := podGone(p); err != nil {
		return nil, fmt.Errorf("open sandbox %s: %w", id, err)
	}
	// Create returns once the pod answers an exec, which can be before the
	// kubelet's next status relist says Running: a pending pod whose
	// sandbox container has started (never an exec before: startedevent.go)
	// and that answers is open too.
	if p.Status.Phase != corev1.PodRunning && (p.Status.Phase != corev1.PodPending || !r.startedNow(ctx, p) || r.readyProbe(ctx, p) != nil) {
		return nil, fmt.Errorf("open sandbox %s: pod is %s, not running", id, p.Status.Phase)
	}
	sb := newSandbox(r, id, specFromPod(p))
	sb.oomSeen = -1 // not created here: earlier OOM kills are unknown
	return sb, nil
}

// managed gets pod id, refusing one rbx did not create.
func (r *Runtime) managed(ctx context.Context, id string) (*corev1.Pod, error) {
	p, err := r.cs.CoreV1().Pods(r.namespace).Get(ctx, id, metav1.GetOptions{})
	if err != nil {
		return nil, apiErr(err)
	}
	if p.Labels[sandbox.LabelManaged] != "true" {
		return nil, fmt.Errorf("%w: %w", sandbox.ErrNotFound, errNotManaged)
	}
	return p, nil
}

// List returns the rbx pods of the namespace, running or not, whose labels
// include every pair in selector: one label-selector query.
func (r *Runtime) List(ctx context.Context, selector map[string]string) ([]sandbox.Info, error) {
	set := maps.Clone(selector)
	if set == nil {
		set = map[string]string{}
	}
	set[sandbox.LabelManaged] = "true"
	sel, err := labels.ValidatedSelectorFromSet(set)
	if err != nil {
		return nil, fmt.Errorf("list sandboxes: %w: selector: %w", sandbox.ErrInvalidSpec, err)
	}
	pods, err := r.cs.CoreV1().Pods(r.namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, fmt.Errorf("list sandboxes: %w", apiErr(err))
	}
	infos := make([]sandbox.Info, 0, len(pods.Items))
	for i := range pods.Items {
		infos = append(infos, info(&pods.Items[i]))
	}
	return infos, nil
}

// Remove deletes an rbx pod at once. A pod that does not exist, or that
// rbx did not create, returns an error wrapping sandbox.ErrNotFound.
func (r *Runtime) Remove(ctx context.Context, id string) error {
	if _, err := r.managed(ctx, id); err != nil {
		return fmt.Errorf("remove sandbox %s: %w", id, err)
	}
	if err := r.deletePod(ctx, id); err != nil {
		return fmt.Errorf("remove sandbox %s: %w", id, err)
	}
	return nil
}
