package docker_test

import (
	"testing"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/sandboxtest"
)

// TestIntegrationConformance runs the suite on a runtime with the agent,
// so that its Recycle case runs too.
func TestIntegrationConformance(t *testing.T) {
	rt := newRecycleRuntime(t)
	ensureImage(t, rt.Client())
	sandboxtest.Run(t, rt, sandbox.Spec{Image: testImage})
}
