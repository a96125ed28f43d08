package kubernetes_test

import (
	"context"
	"testing"

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
	sandboxtest.RunIsGVisor(t, rt, sandbox.Spec{Image: busyboxImage})
}

// TestIntegrationRunscMemoryEndsPod: under gVisor a step past the memory
// limit ends the pod's whole sandbox (the node's OOM killer kills the
// Sentry); that must be reported as the sandbox gone, in both modes, not
// as the step's exit status.
func TestIntegrationRunscMemoryEndsPod(t *testing.T) {
	rt := k8stest.RunscRuntime(t)
	t.Cleanup(func() { k8stest.NoneLeft(t, rt) })
	for _, mode := range []sandbox.Mode{sandbox.ModeSession, sandbox.ModeExec} {
		t.Run(string(mode), func(t *testing.T) {
			sb, err := rt.Create(context.Background(), sandbox.Spec{Image: busyboxImage, Mode: mode,
				Limits: sandbox.Limits{MemoryBytes: 64 << 20}})
			t.Cleanup(func() {
				if sb != nil {
					_ = sb.Remove(context.Background())
				}
			})
			require.NoError(t, err)
			_, err = sb.Exec(context.Background(), sandbox.ExecRequest{Command: "head -c 400000000 /dev/zero | tail -n 1 | wc -c"})
			require.ErrorIs(t, err, sandbox.ErrSandboxGone, "the pod's gVisor ended: reported as the sandbox gone")
		})
	}
}
