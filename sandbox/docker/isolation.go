package docker

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/rbx-sandbox/rbx/sandbox"
)

var _ sandbox.IsolationReporter = (*Runtime)(nil)

// Isolation reports, from the engine, the OCI runtime sandboxes run on
// (WithOCIRuntime, else the engine's default), the engine's runtimes, its
// default seccomp profile, whether it remaps users or runs rootless, and
// the disk bound.
func (r *Runtime) Isolation(ctx context.Context) (sandbox.Isolation, error) {
	info, err := r.cli.Info(ctx)
	if err != nil {
		return sandbox.Isolation{}, fmt.Errorf("isolation: %w", engineErr(err))
	}
	iso := sandbox.Isolation{OCIRuntime: r.oci.name}
	if iso.OCIRuntime == "" {
		iso.OCIRuntime = info.DefaultRuntime
	}
	for n := range info.Runtimes {
		iso.Available = append(iso.Available, n)
	}
	slices.Sort(iso.Available)
	for _, opt := range info.SecurityOptions {
		fields := map[string]string{}
		for _, kv := range strings.Split(opt, ",") {
			k, v, _ := strings.Cut(kv, "=")
			fields[k] = v
		}
		switch fields["name"] {
		case "seccomp":
			iso.Seccomp = fields["profile"]
		case "userns":
			iso.UserNS = true
		case "rootless":
			iso.Rootless = true
		}
	}
	if bound, why, err := r.DiskBound(ctx); err == nil {
		iso.DiskBound = fmt.Sprintf("%s (%s)", bound, why)
	}
	return iso, nil
}
