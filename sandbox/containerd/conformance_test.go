package containerd_test

import (
	"testing"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/containerd/containerdtest"
	"github.com/rbx-sandbox/rbx/sandbox/sandboxtest"
)

// testImage is rbx's busybox base image, built in Docker and imported.
const testImage = "rbx/busybox:latest"

func TestIntegrationConformance(t *testing.T) {
	rt := containerdtest.Runtime(t, testImage)
	sandboxtest.Run(t, rt, sandbox.Spec{Image: testImage})
}
