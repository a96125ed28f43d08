package containerd_test

import (
	"context"
	"path"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/recycle/recycletest"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/containerd/containerdtest"
)

// benchStep measures one trivial step on a started sandbox, as the docker
// backend's benchmark of the same name does.
func benchStep(b *testing.B, mode sandbox.Mode) {
	rt := newRuntime(b)
	sb := newSandbox(b, rt, sandbox.Spec{Mode: mode})
	ctx := context.Background()
	req := sandbox.ExecRequest{Command: "true"}
	_, err := sb.Exec(ctx, req) // exec mode probes its shell on first use
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

// BenchmarkIntegrationCreate measures create (session mode: task started,
// shell answering) plus remove.
func BenchmarkIntegrationCreate(b *testing.B) {
	rt := newRuntime(b)
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		sb, err := rt.Create(ctx, sandbox.Spec{Image: testImage})
		require.NoError(b, err)
		require.NoError(b, sb.Remove(ctx))
	}
}

// BenchmarkIntegrationRecycle compares getting a fresh sandbox back after
// an episode by Recycle (an agent exec, a new session exec) with removing
// it and creating the next (recyclable, as a recycling pool creates them,
// and plain).
//
//	go test -run '^$' -bench IntegrationRecycle -benchtime 20x ./sandbox/containerd/
func BenchmarkIntegrationRecycle(b *testing.B) {
	rt := containerdtest.RecyclingRuntime(b, testImage, recycletest.Debian)
	for _, img := range []string{testImage, recycletest.Debian} {
		b.Run(path.Base(img)+"/Recycle", func(b *testing.B) { recycletest.BenchRecycle(b, rt, img) })
		b.Run(path.Base(img)+"/CreateRemoveRecyclable", func(b *testing.B) { recycletest.BenchCreateRemove(b, rt, img, true) })
		b.Run(path.Base(img)+"/CreateRemove", func(b *testing.B) { recycletest.BenchCreateRemove(b, rt, img, false) })
	}
}
