package sandbox

// Runsc is gVisor's OCI runtime, as scripts/host-setup.sh installs it for
// every backend that takes it (docs/isolation.md).
const Runsc = "runsc"

// RunscPidsFloor is the least pids limit a gVisor sandbox's cgroup gets:
// there the cgroup holds the Sentry's and the gofer's threads, not the
// task's processes (the Sentry's goroutines), and a task's limit of 128
// ended sandboxes while a second exec ran.
const RunscPidsFloor = 1024

// OnRunsc is l as a gVisor sandbox's cgroup gets it: the pids limit raised
// to RunscPidsFloor, since it bounds gVisor's threads, not the task.
func (l Limits) OnRunsc() Limits {
	l.Pids = max(l.Pids, RunscPidsFloor)
	return l
}
