package docker_test

import (
	"context"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/client"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/recycle/agenttest"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
)

// newRecycleRuntime returns a docker runtime with the agent built for the
// test binary and imgs present, closed (baseline containers removed) at
// test end; it skips when no engine answers.
func newRecycleRuntime(tb testing.TB, imgs ...string) *docker.Runtime {
	tb.Helper()
	return newRecycleRuntimeWith(tb, nil, imgs...)
}

// newRecycleRuntimeWith is newRecycleRuntime with more options.
func newRecycleRuntimeWith(tb testing.TB, more []docker.Option, imgs ...string) *docker.Runtime {
	tb.Helper()
	dockertest.Skip(tb)
	opts := append([]docker.Option{docker.WithAgent(agenttest.Build(tb))}, more...)
	if os.Getenv("RBX_TEST_DEBUG") != "" {
		opts = append(opts, docker.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	}
	rt, err := docker.New(opts...)
	tb.Cleanup(func() {
		if rt != nil {
			_ = rt.Close()
		}
	})
	require.NoError(tb, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for _, img := range imgs {
		_, err := rt.EnsureImage(ctx, img)
		require.NoError(tb, err)
	}
	return rt
}

// recyclable is the spec of a recyclable test sandbox.
func recyclable(image string, mode sandbox.Mode) sandbox.Spec {
	return sandbox.Spec{Image: image, Mode: mode, Recycle: true, StepTimeout: 20 * time.Second}
}

// scopedHere reports whether this engine's recycles are scoped by the
// upper layer (fuse-overlayfs storage, read by a root test process): the
// hostile test then asserts that they were.
func scopedHere(t *testing.T) bool {
	t.Helper()
	scoped, err := scopedOnce()
	require.NoError(t, err)
	return scoped
}

var scopedOnce = sync.OnceValues(func() (bool, error) {
	if os.Geteuid() != 0 {
		return false, nil
	}
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return false, err
	}
	defer cli.Close()
	info, err := cli.Info(context.Background())
	return info.Driver == "fuse-overlayfs", err
})
