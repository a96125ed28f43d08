package docker_test

import (
	"context"
	"path"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/recycle/recycletest"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
)

// toolchain is the large image of the recycle benchmark (72,778 entries),
// measured when it is present.
const toolchain = "rbx/buildpack-deps:bookworm"

// BenchmarkIntegrationRecycle compares, per image, getting a fresh sandbox
// (session mode) after an episode by Recycle — its walk scoped by the
// upper layer where the engine allows it, then walking every writable
// mount — with doing it by Remove and Create of the same spec (without
// Recycle). Each op is one episode step plus the way back to fresh; the
// logged means are per op.
//
//	go test -run '^$' -bench IntegrationRecycle -benchtime 20x ./sandbox/docker/
func BenchmarkIntegrationRecycle(b *testing.B) {
	imgs := []string{busybox, debian}
	rt := newRecycleRuntime(b, imgs...)
	if _, _, err := rt.Client().ImageInspectWithRaw(context.Background(), toolchain); err == nil {
		imgs = append(imgs, toolchain)
	} else {
		b.Logf("%s missing (rbx images build --all): not measured", toolchain)
	}
	full := newRecycleRuntimeWith(b, []docker.Option{docker.WithScopedRecycle(false)})
	for _, img := range imgs {
		b.Run(path.Base(img)+"/Recycle", func(b *testing.B) { benchRecycle(b, rt, img) })
		b.Run(path.Base(img)+"/RecycleFullWalk", func(b *testing.B) { benchRecycle(b, full, img) })
		b.Run(path.Base(img)+"/CreateRemove", func(b *testing.B) { recycletest.BenchCreateRemove(b, rt, img, false) })
	}
}

// BenchmarkIntegrationCreateRecyclable compares, per image, the Create +
// Remove of a recyclable sandbox — its fresh listing scoped by the upper
// layer once the image's is held, then a whole walk each time (full walks)
// — with that of a plain one. The first recyclable sandbox of each
// runtime takes the image's whole listing before the timer starts.
//
//	go test -run '^$' -bench IntegrationCreateRecyclable -benchtime 10x ./sandbox/docker/
func BenchmarkIntegrationCreateRecyclable(b *testing.B) {
	imgs := []string{busybox, debian}
	rt := newRecycleRuntime(b, imgs...)
	if _, _, err := rt.Client().ImageInspectWithRaw(context.Background(), toolchain); err == nil {
		imgs = append(imgs, toolchain)
	} else {
		b.Logf("%s missing (rbx images build --all): not measured", toolchain)
	}
	full := newRecycleRuntimeWith(b, []docker.Option{docker.WithScopedRecycle(false)})
	for _, img := range imgs {
		b.Run(path.Base(img)+"/Recyclable", func(b *testing.B) { recycletest.BenchCreateRemove(b, rt, img, true) })
		b.Run(path.Base(img)+"/RecyclableFullWalk", func(b *testing.B) { recycletest.BenchCreateRemove(b, full, img, true) })
		b.Run(path.Base(img)+"/Plain", func(b *testing.B) { recycletest.BenchCreateRemove(b, rt, img, false) })
	}
}

func benchRecycle(b *testing.B, rt *docker.Runtime, img string) {
	ctx := context.Background()
	sb := newSandbox(b, rt, recyclable(img, sandbox.ModeSession))
	b.ResetTimer()
	start := time.Now()
	scoped := 0
	for i := 0; i < b.N; i++ {
		recycletest.RunBenchEpisode(b, sb)
		rep, err := sb.(sandbox.Recycler).Recycle(ctx)
		require.NoError(b, err)
		scoped = rep.Scoped
	}
	b.Logf("%s: Recycle: mean %v over %d (scope: %d directories)", img, time.Since(start)/time.Duration(b.N), b.N, scoped)
}
