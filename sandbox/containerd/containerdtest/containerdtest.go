// Package containerdtest gives integration tests the containerd runtime,
// with the Docker Engine as its image source and rbx's base images built
// and imported, or skips them with a clear message when no containerd
// answers — unless RBX_REQUIRE_CONTAINERD=1 (or RBX_REQUIRE_DOCKER=1, the
// switch CI sets for engine tests) turns that skip into a failure.
package containerdtest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/rbx-sandbox/rbx/recycle/agenttest"
	"github.com/rbx-sandbox/rbx/sandbox/containerd"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
)

// Runtime returns a containerd runtime closed at test end, whose image
// source is the Docker Engine, with the named rbx images (e.g.
// "rbx/busybox:latest") built there if missing and imported into the rbx
// namespace. Imported images stay, as a cache keyed by the image id.
func Runtime(tb testing.TB, imgs ...string) *containerd.Runtime {
	tb.Helper()
	return runtime(tb, nil, imgs)
}

// RecyclingRuntime is Runtime with the rbx-agent built for the test
// binary (agenttest.Build), so that sandboxes created with Spec.Recycle
// can be recycled in place.
func RecyclingRuntime(tb testing.TB, imgs ...string) *containerd.Runtime {
	tb.Helper()
	Skip(tb)
	return runtime(tb, []containerd.Option{containerd.WithAgent(agenttest.Build(tb))}, imgs)
}

func runtime(tb testing.TB, opts []containerd.Option, imgs []string) *containerd.Runtime {
	tb.Helper()
	Skip(tb)
	src := dockertest.Runtime(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	rt, err := containerd.New(ctx, append([]containerd.Option{containerd.WithImageSource(src)}, opts...)...)
	if err != nil {
		tb.Fatalf("containerd runtime: %v", err)
	}
	tb.Cleanup(func() { _ = rt.Close() })
	for _, name := range imgs {
		if _, err := rt.EnsureImage(ctx, name); err != nil {
			tb.Fatalf("image %s: %v", name, err)
		}
	}
	return rt
}

// Required reports whether a missing containerd fails tests instead of
// skipping them.
func Required() bool {
	return os.Getenv("RBX_REQUIRE_CONTAINERD") == "1" || os.Getenv("RBX_REQUIRE_DOCKER") == "1"
}

// Skip skips tb under `go test -short` and when no containerd answers
// (failing it instead when Required).
func Skip(tb testing.TB) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("-short: skipping a test that needs containerd")
	}
	if err := containerd.Available(context.Background(), ""); err != nil {
		if Required() {
			tb.Fatalf("no containerd answers and RBX_REQUIRE_CONTAINERD/RBX_REQUIRE_DOCKER is set: %v", err)
		}
		tb.Skipf("no containerd answers: %v", err)
	}
	if err := docker.Available(context.Background()); err != nil && !Required() {
		tb.Skipf("no Docker engine answers (the containerd tests import their images from it): %v", err)
	}
}

// RunscRuntime is Runtime on gVisor (containerd.WithOCIRuntime(Runsc));
// it skips tb, with a message, when containerd.RunscWrapper is not
// installed (failing it instead when Required).
func RunscRuntime(tb testing.TB, imgs ...string) *containerd.Runtime {
	tb.Helper()
	Skip(tb)
	if _, err := os.Stat(containerd.RunscWrapper); err != nil {
		if Required() {
			tb.Fatalf("no %s and RBX_REQUIRE_CONTAINERD/RBX_REQUIRE_DOCKER is set: scripts/host-setup.sh runsc installs it", containerd.RunscWrapper)
		}
		tb.Skipf("no %s (scripts/host-setup.sh runsc installs it): %v", containerd.RunscWrapper, err)
	}
	return runtime(tb, []containerd.Option{containerd.WithOCIRuntime(containerd.Runsc)}, imgs)
}
