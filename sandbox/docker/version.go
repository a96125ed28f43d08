package docker

import (
	"context"
	"fmt"

	"github.com/rbx-sandbox/rbx/sandbox"
)

var _ sandbox.EngineVersioner = (*Runtime)(nil)

// EngineVersion returns the Docker engine's version and API version.
func (r *Runtime) EngineVersion(ctx context.Context) (version, apiVersion string, err error) {
	v, err := r.cli.ServerVersion(ctx)
	if err != nil {
		return "", "", fmt.Errorf("engine version: %w", engineErr(err))
	}
	return v.Version, v.APIVersion, nil
}
