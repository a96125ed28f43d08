package containerd

import (
	"context"
	"fmt"

	"github.com/rbx-sandbox/rbx/sandbox"
)

var _ sandbox.EngineVersioner = (*Runtime)(nil)

// EngineVersion returns containerd's version and revision.
func (r *Runtime) EngineVersion(ctx context.Context) (version, apiVersion string, err error) {
	v, err := r.cli.Version(ctx)
	if err != nil {
		return "", "", fmt.Errorf("engine version: %w", engineErr(err))
	}
	return v.Version, v.Revision, nil
}
