// Package dockertest gives integration tests the docker runtime with rbx's
// base images built, or skips them with a clear message when no engine
// answers — one place for what every package's integration tests need.
package dockertest

import (
	"context"
	"testing"
	"time"

	"github.com/rbx-sandbox/rbx/images"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
)

// Runtime returns a docker runtime closed at test end, with the named rbx
// images (e.g. "rbx/busybox:latest") built if missing; it skips tb when no
// engine answers and fails it when an image cannot be built.
func Runtime(tb testing.TB, imgs ...string) *docker.Runtime {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := docker.Available(ctx); err != nil {
		tb.Skipf("no Docker engine answers: %v", err)
	}
	rt, err := docker.New()
	if err != nil {
		tb.Fatalf("docker runtime: %v", err)
	}
	tb.Cleanup(func() { _ = rt.Close() })
	b, err := images.NewBuilder(rt.Client())
	if err != nil {
		tb.Fatalf("image builder: %v", err)
	}
	for _, name := range imgs {
		if _, err := b.Ensure(ctx, name); err != nil {
			tb.Fatalf("build %s: %v", name, err)
		}
	}
	return rt
}
