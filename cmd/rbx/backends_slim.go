//go:build rbx_slim

package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// A binary built with -tags rbx_slim (make demo's: the demo uses Docker
// only) leaves out the containerd and kubernetes backends: Kubernetes'
// client alone is a third of a cold build's compile time. They stay
// names --runtime knows, failing with what to do.

const containerdAddressUsage = "containerd socket for --runtime containerd (not in this build: make build has it)"

const containerdSnapshotterUsage = "snapshotter of --runtime containerd's sandboxes (not in this build: make build has it)"

// clusterBackends are stand-ins that say the backend is not built in.
func clusterBackends(*slog.Logger, io.Writer, backendOptions) []sandbox.Backend {
	out := make([]sandbox.Backend, 0, 2)
	for _, name := range []string{"containerd", "kubernetes"} {
		err := fmt.Errorf("the %s backend is not in this binary (built with -tags rbx_slim, as make demo builds it): make build builds every backend", name)
		out = append(out, sandbox.Backend{
			Name:      name,
			Available: func(context.Context) error { return err },
			New:       func() (sandbox.Runtime, error) { return nil, err },
		})
	}
	return out
}
