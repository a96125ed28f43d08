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
//     made by the sandbox's own (then non-root) user; NumericUser: a
//     numeric one runs every command and file action as that uid;
//   - no ReadOnlyRoot: it is applied (memory-backed emptyDirs at the
//     workdir and /tmp), but those start empty, not with the image's files;
//   - Recycle when the runtime has its agent (WithAgent), for sandboxes
//     run as root (CheckRecycle).
//
// With a RuntimeClass (WithRuntimeClass), whose handler rbx cannot see,
// fewer, as the test cluster's runsc measured them (its conformance run):
//   - no PrivateNetwork: its gVisor runs with --network=none, so a pod
//     has loopback only, whatever the pod network;
//   - no MemoryLimit: a step over the limit ends the pod's whole gVisor
//     sandbox, and the step reports exit -1 or 128 ("containerManager.
//     WaitPID failed: EOF"), neither an OOM kill nor the sandbox gone;
//   - no Recycle: the agent is not proved under another handler.
func (r *Runtime) Features() sandbox.Features {
	f := sandbox.Features{
		PrivateNetwork: true, ProcessIsolation: true, MemoryLimit: true, FileSizeLimit: true, NumericUser: true,
		Recycle: r.cfg.agentImage != "",
	}
	if r.cfg.runtimeClass != "" {
		f.PrivateNetwork, f.MemoryLimit, f.Recycle = false, false, false
	}
	return f
}
