package containerd_test

import (
	"testing"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/containerd"
	"github.com/rbx-sandbox/rbx/sandbox/containerd/containerdtest"
	"github.com/rbx-sandbox/rbx/sandbox/sandboxtest"
)

// testImage is rbx's busybox base image, built in Docker and imported.
const testImage = "rbx/busybox:latest"

// TestIntegrationConformance runs the suite on a runtime with the agent,
// so that its Recycle case runs too.
func TestIntegrationConformance(t *testing.T) {
	rt := containerdtest.RecyclingRuntime(t, testImage)
	if !rt.Features().PrivateNetwork && containerdtest.Required() {
		// CI must test the bridge network, not skip it.
		t.Fatalf("no CNI plugins in %v and RBX_REQUIRE_CONTAINERD/RBX_REQUIRE_DOCKER is set: apt-get install containernetworking-plugins", containerd.CNIBinDirs)
	}
	sandboxtest.Run(t, rt, sandbox.Spec{Image: testImage})
}
