package containerd

import (
	"context"
	"fmt"
	"os"

	"github.com/rbx-sandbox/rbx/sandbox"
)

var _ sandbox.IsolationReporter = (*Runtime)(nil)

// Isolation reports the OCI runtime sandboxes run on (runc, or runsc
// through its wrapper), the runtimes this host has, containerd's default
// seccomp profile (every sandbox's spec gets it), and the disk bound.
// containerd remaps no users here, and rbx talks to a root containerd.
func (r *Runtime) Isolation(ctx context.Context) (sandbox.Isolation, error) {
	iso := sandbox.Isolation{OCIRuntime: r.oci.name, Available: []string{"runc"}, Seccomp: "default (containerd's)"}
	if iso.OCIRuntime == "" {
		iso.OCIRuntime = "runc"
	}
	if info, err := os.Stat(RunscWrapper); err == nil && info.Mode()&0o111 != 0 {
		iso.Available = append(iso.Available, Runsc)
	}
	bound, why, err := r.DiskBound(ctx)
	if err != nil {
		return iso, fmt.Errorf("isolation: %w", err)
	}
	iso.DiskBound = fmt.Sprintf("%s (%s)", bound, why)
	return iso, nil
}
