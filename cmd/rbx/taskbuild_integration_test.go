package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/image"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/examples"
	"github.com/rbx-sandbox/rbx/images"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
)

// TestIntegrationTaskBuild: a task that names a Dockerfile (build:) and
// no image has its image built on Docker, tagged by its context's content,
// and replays to a passing verifier; a second replay reuses the image. An
// image built locally under a plain name (no registry) is not "pulled
// from docker.io" under the default --pull missing: the operator's
// registry policy does not refuse it.
func TestIntegrationTaskBuild(t *testing.T) {
	dk := dockertest.Runtime(t)
	ctx := context.Background()
	run := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := Run(ctx, args, Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
		return code, out.String() + errOut.String()
	}
	setImage := func(t *testing.T, dir, line string) string {
		taskPath := filepath.Join(dir, "run-sh-path", "task.yaml")
		data, err := os.ReadFile(taskPath)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(taskPath, []byte(strings.Replace(string(data), "image: rbx/busybox:latest", line, 1)), 0o644))
		return filepath.Join(dir, "run-sh-path", "trajectory.json")
	}

	t.Run("build", func(t *testing.T) {
		dir := t.TempDir()
		require.NoError(t, examples.Extract(dir))
		env := filepath.Join(dir, "run-sh-path", "env")
		require.NoError(t, os.MkdirAll(env, 0o755))
		// A layer of its own: the image is the task's, not its base.
		require.NoError(t, os.WriteFile(filepath.Join(env, "Dockerfile"),
			[]byte("FROM rbx/busybox:latest\nRUN echo "+t.Name()+" > /etc/rbx-built\n"), 0o644))
		traj := setImage(t, dir, "build: {context: env}")
		tag, err := images.TaskTag("run-sh-path", env)
		require.NoError(t, err)
		t.Cleanup(func() { _, _ = dk.Client().ImageRemove(context.Background(), tag, image.RemoveOptions{Force: true}) })

		code, out := run("replay", traj, "--runtime", "docker", "--verify")
		require.Equal(t, 0, code, out)
		info, err := dk.Client().ImageInspect(ctx, tag)
		require.NoError(t, err, "built as %s", tag)
		assert.Equal(t, "true", info.Config.Labels["rbx.task-image"])
		code, out = run("replay", traj, "--runtime", "docker", "--verify")
		require.Equal(t, 0, code, out)
		again, err := dk.Client().ImageInspect(ctx, tag)
		require.NoError(t, err)
		assert.Equal(t, info.ID, again.ID, "the second replay reuses the image")
	})

	t.Run("plain name built here", func(t *testing.T) {
		const local = "rbx-it-local-env:1"
		require.NoError(t, dk.Client().ImageTag(ctx, "rbx/busybox:latest", local))
		t.Cleanup(func() { _, _ = dk.Client().ImageRemove(context.Background(), local, image.RemoveOptions{}) })
		dir := t.TempDir()
		require.NoError(t, examples.Extract(dir))
		traj := setImage(t, dir, "image: "+local)
		code, out := run("replay", traj, "--runtime", "docker", "--verify", "--allow-registry", "registry.invalid")
		require.Equal(t, 0, code, out)
		assert.NotContains(t, out, "pulled from")

		// Absent, the same name would be pulled from docker.io: refused.
		_, err := dk.Client().ImageRemove(ctx, local, image.RemoveOptions{})
		require.NoError(t, err)
		code, out = run("replay", traj, "--runtime", "docker", "--allow-registry", "registry.invalid")
		assert.Equal(t, exitUsage, code, out)
		assert.Contains(t, out, "pulled from docker.io")
	})
}
