package containerd

import "github.com/rbx-sandbox/rbx/sandbox"

var _ sandbox.FeatureReporter = (*Runtime)(nil)

// Features declares every guarantee of sandbox.Features, but a private
// network only where the CNI plugins it needs are installed (see
// CNIBinDirs): without them Network "bridge" is refused with ErrNoCNI;
// Recycle when the runtime has its agent (WithAgent). On gVisor
// (WithOCIRuntime(Runsc)) fewer, each measured by the conformance suite
// (TestIntegrationConformanceRunsc, the missing ones forced on):
//   - no PrivateNetwork: RunscWrapper runs runsc with --network=none;
//   - no PidsLimit: the task's processes are the Sentry's, which the
//     cgroup does not count (104 seen under a limit of 24); it bounds
//     gVisor's own threads, at least sandbox.RunscPidsFloor, and 100 processes at
//     once ended the sandbox (exit 2);
//   - no ReadOnlyRoot: refused (see checkOCIRuntime);
//   - no Recycle: the agent is not proved under gVisor.
//
// MemoryLimit holds (4 runs of 4), though a step over it may end the
// whole sandbox, reported as gone with cause oom_killed, which the suite
// accepts.
func (r *Runtime) Features() sandbox.Features {
	f := sandbox.AllFeatures
	_, err := findCNI(CNIBinDirs)
	f.PrivateNetwork = err == nil
	f.Recycle = r.agent != nil
	if r.oci.name == Runsc {
		f.PrivateNetwork, f.PidsLimit, f.ReadOnlyRoot, f.Recycle = false, false, false, false
	}
	return f
}

// ociLimits are l as the cgroup gets them (sandbox.Limits.OnRunsc on runsc).
func (r *Runtime) ociLimits(l sandbox.Limits) sandbox.Limits {
	if r.oci.name == Runsc {
		return l.OnRunsc()
	}
	return l
}
