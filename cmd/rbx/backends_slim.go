//go:build rbx_slim

package main

import (
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
	return notBuiltIn("rbx_slim", "containerd", "kubernetes")
}
