package images

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/internal/testenv"
)

// engine returns an Engine API client, skipping the test when no engine
// answers (failing it when RBX_REQUIRE_DOCKER=1).
func engine(t *testing.T) *client.Client {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping a test that needs the Docker engine")
	}
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		testenv.Missing(t, "no Docker engine: %v", err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := cli.Ping(ctx); err != nil {
		testenv.Missing(t, "no Docker engine answers: %v", err)
	}
	return cli
}

// testBuilder logs progress to the test log and caches under the user's
// cache dir, so the debian rootfs survives between runs.
func testBuilder(t *testing.T, cli ImageAPI) *Builder {
	t.Helper()
	b, err := NewBuilder(cli, WithProgress(tWriter{t}))
	require.NoError(t, err)
	return b
}

type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

func assertRecipeImage(t *testing.T, cli ImageAPI, r Recipe, cmd string) {
	t.Helper()
	info, err := cli.ImageInspect(context.Background(), r.Name)
	require.NoError(t, err)
	require.NotNil(t, info.Config)
	assert.Equal(t, r.Name, info.Config.Labels[LabelRecipe])
	assert.Equal(t, strconv.Itoa(r.Version), info.Config.Labels[LabelRecipeVersion])
	assert.Contains(t, info.Config.Env, "PATH="+defaultPath)
	assert.Equal(t, []string{cmd}, info.Config.Cmd)
}

func TestIntegrationEnsureBusybox(t *testing.T) {
	cli := engine(t)
	ctx := context.Background()
	b := testBuilder(t, cli)

	// Build under a throwaway name first, so the build path runs every
	// time without untagging the shared rbx/busybox:latest.
	r, ok := Lookup("rbx/busybox")
	require.True(t, ok)
	r.Name = "rbx-test/busybox:" + time.Now().Format("150405.000000")
	b.recipes = append([]Recipe{r}, b.recipes...)
	t.Cleanup(func() { _, _ = cli.ImageRemove(context.Background(), r.Name, image.RemoveOptions{Force: true}) })
	start := time.Now()
	built, err := b.Ensure(ctx, r.Name)
	require.NoError(t, err)
	assert.True(t, built)
	t.Logf("busybox build+import: %s", time.Since(start))
	assertRecipeImage(t, cli, r, "sh")

	start = time.Now()
	built, err = b.Ensure(ctx, r.Name)
	require.NoError(t, err)
	assert.False(t, built)
	assert.Less(t, time.Since(start), time.Second)

	// Leave the real image in place for other tests.
	_, err = b.Ensure(ctx, "rbx/busybox:latest")
	require.NoError(t, err)
}

func TestIntegrationEnsureDebian(t *testing.T) {
	cli := engine(t)
	ctx := context.Background()
	r, _ := Lookup("rbx/debian:bookworm")
	if _, err := cli.ImageInspect(ctx, r.Name); err != nil && os.Getenv("RBX_TEST_DEBIAN") != "1" {
		if required, _ := testenv.DockerRequired(); !required {
			t.Skip("rbx/debian:bookworm is absent and a build takes minutes; set RBX_TEST_DEBIAN=1")
		}
		// RBX_REQUIRE_DOCKER=1 (CI): build it rather than skip.
	}
	b := testBuilder(t, cli)
	start := time.Now()
	built, err := b.Ensure(ctx, r.Name)
	require.NoError(t, err)
	t.Logf("debian ensure (built=%v): %s", built, time.Since(start))
	assertRecipeImage(t, cli, r, "bash")
	info, err := cli.ImageInspect(ctx, r.Name)
	require.NoError(t, err)
	assert.Contains(t, info.Config.Env, "LANG=C.UTF-8")

	for _, check := range [][]string{
		{"bash", "-c", "echo ok"},
		{"python3", "-m", "pytest", "--version"},
		{"git", "--version"},
		{"curl", "--version"},
	} {
		out, code := runInImage(t, cli, r.Name, check)
		assert.Equal(t, 0, code, "%v: %s", check, out)
	}
}
