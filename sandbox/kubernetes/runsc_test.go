package kubernetes_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes/k8stest"
	"github.com/rbx-sandbox/rbx/sandbox/sandboxtest"
)

// TestIntegrationConformanceRunsc runs the suite on pods of the runsc
// RuntimeClass (gVisor, through the CRI's runc shim and rbx's wrapper):
// every case that applies must pass; Features declares what differs.
func TestIntegrationConformanceRunsc(t *testing.T) {
	rt := k8stest.RunscRuntime(t)
	t.Cleanup(func() { k8stest.NoneLeft(t, rt) })
	sandboxtest.Run(t, rt, sandbox.Spec{Image: busyboxImage})
}

// TestIntegrationRunscIsGVisor: the pod's kernel is gVisor's (its boot
// log), not the node's: a handler that fell back to runc would pass the
// suite as well.
func TestIntegrationRunscIsGVisor(t *testing.T) {
	rt := k8stest.RunscRuntime(t)
	t.Cleanup(func() { k8stest.NoneLeft(t, rt) })
	sb, err := rt.Create(context.Background(), sandbox.Spec{Image: busyboxImage, Mode: sandbox.ModeExec})
	t.Cleanup(func() {
		if sb != nil {
			_ = sb.Remove(context.Background())
		}
	})
	require.NoError(t, err)
	res, err := sb.Exec(context.Background(), sandbox.ExecRequest{Command: "dmesg | head -n 1"})
	require.NoError(t, err)
	assert.Contains(t, string(res.Output), "gVisor")
}
