// Package dockertest gives integration tests the docker runtime with rbx's
// base images built, or skips them with a clear message when no engine
// answers (fails them when RBX_REQUIRE_DOCKER=1) — one place for what every
// package's integration tests need.
package dockertest

import (
	"context"
	"testing"
	"time"

	"github.com/rbx-sandbox/rbx/internal/testenv"
	"github.com/rbx-sandbox/rbx/recycle/agenttest"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
)

// Runtime returns a docker runtime closed at test end, with the named rbx
// images (e.g. "rbx/busybox:latest") built if missing; it skips tb under
// -short (see Skip) and when no engine answers, and fails it when an image
// cannot be built.
func Runtime(tb testing.TB, imgs ...string) *docker.Runtime {
	tb.Helper()
	return runtime(tb, nil, imgs)
}

// RecyclingRuntime is Runtime with the rbx-agent built for the test
// binary (agenttest.Build), so that sandboxes created with Spec.Recycle
// can be recycled in place.
func RecyclingRuntime(tb testing.TB, imgs ...string) *docker.Runtime {
	tb.Helper()
	Skip(tb)
	return runtime(tb, []docker.Option{docker.WithAgent(agenttest.Build(tb))}, imgs)
}

func runtime(tb testing.TB, opts []docker.Option, imgs []string) *docker.Runtime {
	tb.Helper()
	Skip(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	rt, err := docker.New(opts...)
	if err != nil {
		tb.Fatalf("docker runtime: %v", err)
	}
	tb.Cleanup(func() { _ = rt.Close() })
	for _, name := range imgs {
		if _, err := rt.EnsureImage(ctx, name); err != nil {
			tb.Fatalf("build %s: %v", name, err)
		}
	}
	return rt
}

// Skip skips tb under `go test -short` (make unit runs no Docker test) and
// when no engine answers — unless RBX_REQUIRE_DOCKER=1 (set by CI), which
// turns the missing engine into a failure (testenv.Missing); -short stays a
// skip. Tests that reach the engine some other way (the rbx binary with
// --runtime docker) call it first.
func Skip(tb testing.TB) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("-short: skipping a test that needs the Docker engine")
	}
	if err := docker.Available(context.Background()); err != nil {
		testenv.Missing(tb, "no Docker engine answers: %v", err)
	}
}

// RunscRuntime is Runtime on the engine's runsc (gVisor) runtime; it skips
// tb, with a message, when the engine does not have it registered (failing
// it instead under RBX_REQUIRE_DOCKER=1, as CI sets: .ci/run registers it).
func RunscRuntime(tb testing.TB, imgs ...string) *docker.Runtime {
	tb.Helper()
	Skip(tb)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rt := runtime(tb, []docker.Option{docker.WithOCIRuntime(docker.Runsc)}, imgs)
	info, err := rt.Client().Info(ctx)
	if err != nil {
		tb.Fatalf("engine info: %v", err)
	}
	if _, ok := info.Runtimes[docker.Runsc]; !ok {
		testenv.Missing(tb, "the engine has no %s runtime (scripts/host-setup.sh installs and registers it)", docker.Runsc)
	}
	return rt
}
