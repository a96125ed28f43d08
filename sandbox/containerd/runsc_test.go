package containerd_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/containerd/containerdtest"
	"github.com/rbx-sandbox/rbx/sandbox/sandboxtest"
)

// TestIntegrationConformanceRunsc runs the suite on gVisor (runsc through
// the runc shim and containerd.RunscWrapper): every case that applies must
// pass; Features declares what differs.
func TestIntegrationConformanceRunsc(t *testing.T) {
	rt := containerdtest.RunscRuntime(t, testImage)
	sandboxtest.Run(t, rt, sandbox.Spec{Image: testImage})
}

// TestIntegrationRunscRefusesReadOnlyRoot: a read-only root's tmpfs would
// be gVisor's, where the files rbx stages never show: refused, not served
// empty.
func TestIntegrationRunscRefusesReadOnlyRoot(t *testing.T) {
	rt := containerdtest.RunscRuntime(t, testImage)
	sb, err := rt.Create(context.Background(), sandbox.Spec{Image: testImage, ReadOnlyRoot: true})
	t.Cleanup(func() {
		if sb != nil {
			_ = sb.Remove(context.Background())
		}
	})
	require.ErrorIs(t, err, sandbox.ErrUnsupported)
}

// TestIntegrationRunscIsGVisor: the sandbox's kernel is gVisor's (its
// boot log), not the host's: a runtime that fell back to runc would pass
// the suite as well.
func TestIntegrationRunscIsGVisor(t *testing.T) {
	sandboxtest.RunIsGVisor(t, containerdtest.RunscRuntime(t, testImage), sandbox.Spec{Image: testImage})
}
