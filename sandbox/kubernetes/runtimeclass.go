package kubernetes

import (
	"context"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// WithRuntimeClass runs every pod with runtimeClassName name: the node's
// CRI handler the RuntimeClass names, for example "runsc" (gVisor: a
// second kernel between the policy's commands and the node's; rbx's test
// cluster, scripts/k8s-cluster.sh, has it when scripts/host-setup.sh
// installed runsc's wrapper). The first Create checks the RuntimeClass
// exists. Default: none, the node's default handler (runc).
func WithRuntimeClass(name string) Option {
	return func(c *config) error {
		if name == "" || !sandbox.ValidLabelValue(name) {
			return fmt.Errorf("runtime class %q: expected a RuntimeClass name", name)
		}
		c.runtimeClass = name
		return nil
	}
}

// RuntimeClass returns the RuntimeClass pods run with ("" for none).
func (r *Runtime) RuntimeClass() string { return r.cfg.runtimeClass }

// runtimeClassCheck remembers that WithRuntimeClass's class exists, or
// that it does not; an API error is retried on the next Create.
type runtimeClassCheck struct {
	mu   sync.Mutex
	done bool
	err  error
}

// checkRuntimeClass fails when the cluster has no RuntimeClass of that
// name, rather than the pod's admission failing with each Create. A class
// rbx may not read (RBAC) is taken on trust: admission still refuses a
// pod that names a missing one.
func (r *Runtime) checkRuntimeClass(ctx context.Context) error {
	name := r.cfg.runtimeClass
	if name == "" {
		return nil
	}
	c := &r.rcCheck
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return c.err
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	_, err := r.cs.NodeV1().RuntimeClasses().Get(ctx, name, metav1.GetOptions{})
	switch {
	case err == nil, apierrors.IsForbidden(err):
		c.done = true
	case apierrors.IsNotFound(err):
		c.done = true
		c.err = fmt.Errorf("%w: RuntimeClass %q: the cluster has none of that name (scripts/k8s-cluster.sh up creates runsc when scripts/host-setup.sh runsc installed its wrapper)",
			sandbox.ErrUnsupported, name)
	default:
		return fmt.Errorf("RuntimeClass %q: %w", name, apiErr(err))
	}
	return c.err
}
