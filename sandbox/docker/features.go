package docker

import "github.com/rbx-sandbox/rbx/sandbox"

var _ sandbox.FeatureReporter = (*Runtime)(nil)

// Features declares every guarantee of sandbox.Features, Recycle when the
// runtime has its agent (WithAgent); on gVisor (WithOCIRuntime("runsc"))
// fewer, each measured by the conformance suite (docs/isolation.md):
//   - no PrivateNetwork: runsc is registered with --network=none (its own
//     network stack needs a network namespace this engine's does not
//     give it);
//   - no PidsLimit: the task's processes are gVisor's kernel's (the
//     Sentry's) goroutines, which the cgroup does not count; the cgroup
//     bounds the Sentry's threads, at least sandbox.RunscPidsFloor;
//   - no MemoryLimit as the suite means it: the limit holds, but a step
//     over it takes the whole sandbox down (the Sentry is what the
//     kernel's OOM killer kills), not the step alone;
//   - no ReadOnlyRoot: the workdir and /tmp tmpfs are gVisor's own, whose
//     bound the suite cannot see;
//   - no Recycle: the agent is not proved under gVisor.
func (r *Runtime) Features() sandbox.Features {
	f := sandbox.AllFeatures
	f.Recycle = r.agent != nil
	if r.oci.name == Runsc {
		f.PrivateNetwork, f.PidsLimit, f.MemoryLimit, f.ReadOnlyRoot, f.Recycle = false, false, false, false, false
	}
	return f
}

// Runsc is gVisor's OCI runtime, as scripts/host-setup.sh registers it.
const Runsc = sandbox.Runsc
