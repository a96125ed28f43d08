package sandbox

// Features says which guarantees of a Spec a backend enforces. A backend
// declares them (FeatureReporter) so that callers, and the conformance
// suite, can tell a guarantee the backend does not give from one that is
// broken: a case that cannot apply is skipped by name, never passed
// silently.
type Features struct {
	// NetworkIsolation: a sandbox with Network "none" has no interface but
	// loopback and reaches nothing outside itself.
	NetworkIsolation bool
	// PrivateNetwork: Network "bridge" gives the sandbox an interface of
	// its own with a route to the host's networks (through NAT).
	PrivateNetwork bool
	// ProcessIsolation: a sandbox's processes see no process of another
	// sandbox or of the host, and absolute paths are the sandbox's own.
	ProcessIsolation bool
	// MemoryLimit: Limits.MemoryBytes is enforced, and an OOM kill is
	// reported (ExecResult.OOMKilled, or a GoneError with CauseOOMKilled).
	MemoryLimit bool
	// PidsLimit: Limits.Pids bounds the processes of a sandbox.
	PidsLimit bool
	// FileSizeLimit: Limits.FileSizeBytes bounds each file a command writes.
	FileSizeLimit bool
	// User: Spec.User runs every command as that user, owning the workdir.
	User bool
	// NumericUser: a numeric Spec.User ("uid" or "uid:gid") runs every
	// command and file action as that uid, the workdir aside (User
	// implies it).
	NumericUser bool
	// ReadOnlyRoot: Spec.ReadOnlyRoot is honoured, the workdir and /tmp
	// being writable and bounded by Limits.DiskBytes.
	ReadOnlyRoot bool
	// Recycle: Spec.Recycle is honoured and its sandboxes implement
	// Recycler. Not in AllFeatures: a backend declares it only when its
	// trusted agent is configured.
	Recycle bool
}

// AllFeatures is what an isolating container backend gives.
var AllFeatures = Features{
	NetworkIsolation: true, PrivateNetwork: true, ProcessIsolation: true, MemoryLimit: true, PidsLimit: true,
	FileSizeLimit: true, User: true, NumericUser: true, ReadOnlyRoot: true,
}

// FeatureReporter is implemented by runtimes that declare their Features.
type FeatureReporter interface {
	Features() Features
}

// FeaturesOf returns what rt declares, and AllFeatures for a runtime that
// declares nothing: a guarantee is assumed until a backend says otherwise,
// so that an undeclared gap fails a test instead of skipping it.
func FeaturesOf(rt Runtime) Features {
	if fr, ok := rt.(FeatureReporter); ok {
		return fr.Features()
	}
	return AllFeatures
}
