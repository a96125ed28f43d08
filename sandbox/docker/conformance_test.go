package docker_test

import (
	"testing"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/sandboxtest"
)

func TestIntegrationConformance(t *testing.T) {
	rt := newRuntime(t)
	sandboxtest.Run(t, rt, sandbox.Spec{Image: testImage})
}
