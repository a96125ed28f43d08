package docker_test

import (
	"testing"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
	"github.com/rbx-sandbox/rbx/sandbox/sandboxtest"
)

// TestIntegrationConformanceRunsc runs the suite on gVisor (the engine's
// runsc runtime): every case that applies must pass (docs/isolation.md
// lists what differs).
func TestIntegrationConformanceRunsc(t *testing.T) {
	rt := dockertest.RunscRuntime(t)
	ensureImage(t, rt.Client())
	sandboxtest.Run(t, rt, sandbox.Spec{Image: testImage})
}
