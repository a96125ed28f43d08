package kubernetes_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/recycle/recycletest"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes/k8stest"
)

// benchStep measures one trivial step on a started pod: an exec round trip
// through the API server and the kubelet (exec mode), or a line on the
// session's open stream (session mode).
func benchStep(b *testing.B, mode sandbox.Mode) {
	rt := k8stest.Runtime(b)
	ctx := context.Background()
	sb, err := rt.Create(ctx, sandbox.Spec{Image: busyboxImage, Mode: mode})
	b.Cleanup(func() {
		if sb != nil {
			_ = sb.Remove(context.Background())
		}
	})
	require.NoError(b, err)
	req := sandbox.ExecRequest{Command: "true"}
	_, err = sb.Exec(ctx, req) // exec mode probes its shell on first use
	require.NoError(b, err)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := sb.Exec(ctx, req)
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("step %d: exit %d: %v", i, res.ExitCode, err)
		}
	}
}

func BenchmarkIntegrationSessionStep(b *testing.B) { benchStep(b, sandbox.ModeSession) }

func BenchmarkIntegrationExecStep(b *testing.B) { benchStep(b, sandbox.ModeExec) }

// BenchmarkIntegrationCreate measures create (pod scheduled, tools sidecar
// and sandbox container started, session shell answering with the tools
// in place) plus remove.
func BenchmarkIntegrationCreate(b *testing.B) {
	rt := k8stest.Runtime(b)
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		sb, err := rt.Create(ctx, sandbox.Spec{Image: busyboxImage})
		require.NoError(b, err)
		require.NoError(b, sb.Remove(ctx))
	}
}

// BenchmarkIntegrationRecycle compares getting a fresh pod back after an
// episode by Recycle (an agent exec, the image's files from the baseline
// container, a new session exec) with deleting the pod and creating the
// next (recyclable, as a recycling pool creates them, and plain).
//
//	go test -run '^$' -bench IntegrationRecycle -benchtime 10x ./sandbox/kubernetes/
func BenchmarkIntegrationRecycle(b *testing.B) {
	rt := k8stest.RecyclingRuntime(b)
	b.Run("Recycle", func(b *testing.B) { recycletest.BenchRecycle(b, rt, busyboxImage) })
	b.Run("CreateRemoveRecyclable", func(b *testing.B) { recycletest.BenchCreateRemove(b, rt, busyboxImage, true) })
	b.Run("CreateRemove", func(b *testing.B) { recycletest.BenchCreateRemove(b, rt, busyboxImage, false) })
}
