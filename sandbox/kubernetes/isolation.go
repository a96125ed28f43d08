package kubernetes

import (
	"context"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rbx-sandbox/rbx/sandbox"
)

var _ sandbox.IsolationReporter = (*Runtime)(nil)

// Isolation reports the RuntimeClass pods run with (WithRuntimeClass; else
// the node's default handler), the cluster's RuntimeClasses when rbx may
// list them, the pods' seccomp profile (RuntimeDefault, set on every pod)
// and the disk bound. Pods do not ask for a user namespace (hostUsers is
// left to the cluster's default).
func (r *Runtime) Isolation(ctx context.Context) (sandbox.Isolation, error) {
	iso := sandbox.Isolation{OCIRuntime: r.cfg.runtimeClass, Seccomp: "RuntimeDefault"}
	if iso.OCIRuntime == "" {
		iso.OCIRuntime = "the node's default handler"
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	if list, err := r.cs.NodeV1().RuntimeClasses().List(ctx, metav1.ListOptions{}); err == nil {
		for _, rc := range list.Items {
			iso.Available = append(iso.Available, rc.Name)
		}
		slices.Sort(iso.Available)
	}
	bound, why, err := r.DiskBound(ctx)
	if err != nil {
		return iso, fmt.Errorf("isolation: %w", err)
	}
	iso.DiskBound = fmt.Sprintf("%s (%s)", bound, why)
	return iso, nil
}
