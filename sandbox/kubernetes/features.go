package kubernetes

import "github.com/rbx-sandbox/rbx/sandbox"

var _ sandbox.FeatureReporter = (*Runtime)(nil)

// Features declares what this backend guarantees on any cluster:
//   - no NetworkIsolation: "none" holds only where the cluster's network
//     plugin enforces the NetworkPolicy of deploy/kubernetes, which rbx
//     cannot check;
//   - no PidsLimit: a pod has no pids field; the kubelet's podPidsLimit
//     bounds every pod of a node alike, not Limits.Pids;
//   - no User: Spec.User must be numeric, and a workdir the image lacks is
//     made by the sandbox's own (then non-root) user;
//   - no ReadOnlyRoot: it is applied (memory-backed emptyDirs at the
//     workdir and /tmp), but those start empty, not with the image's files;
//   - Recycle when the runtime has its agent (WithAgent), for sandboxes
//     run as root (CheckRecycle).
func (r *Runtime) Features() sandbox.Features {
	return sandbox.Features{
		PrivateNetwork: true, ProcessIsolation: true, MemoryLimit: true, FileSizeLimit: true,
		Recycle: r.cfg.agentImage != "",
	}
}
