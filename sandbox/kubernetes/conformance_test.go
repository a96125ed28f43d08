package kubernetes_test

import (
	"testing"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes/k8stest"
	"github.com/rbx-sandbox/rbx/sandbox/sandboxtest"
)

// Images imported into the test cluster by scripts/k8s-cluster.sh.
const (
	busyboxImage = "rbx/busybox:latest"
	debianImage  = "rbx/debian:bookworm"
)

// TestIntegrationConformance runs the suite on a runtime with the agent,
// so that its Recycle case runs too.
func TestIntegrationConformance(t *testing.T) {
	rt := k8stest.RecyclingRuntime(t)
	t.Cleanup(func() { k8stest.NoneLeft(t, rt) })
	for _, img := range []string{busyboxImage, debianImage} {
		t.Run(img, func(t *testing.T) {
			sandboxtest.Run(t, rt, sandbox.Spec{Image: img})
		})
	}
}
