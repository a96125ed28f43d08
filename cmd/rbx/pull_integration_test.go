package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/examples"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/containerd/containerdtest"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
	"github.com/rbx-sandbox/rbx/sandbox/registrytest"
)

// TestIntegrationReplayPullsTaskImage: a task whose image lives only in a
// registry (one this test starts on loopback; rbx's busybox pushed there
// under a fresh name and absent locally) is refused by `rbx replay --pull
// never` with exit 5 naming the image, and replayed to its end under the
// default --pull missing, the pull shown on stderr — on Docker and on
// containerd.
func TestIntegrationReplayPullsTaskImage(t *testing.T) {
	dk := dockertest.Runtime(t)
	reg := registrytest.Start(t, os.Getenv("RBX_REQUIRE_DOCKER") == "1")
	tests := []struct {
		runtime string
		open    func(t *testing.T) // skips without the backend
		forget  func(t *testing.T, ref string)
	}{
		{"docker", func(*testing.T) {}, func(t *testing.T, ref string) { registrytest.RemoveDockerImage(t, dk.Client(), ref) }},
		{"containerd", func(t *testing.T) { containerdtest.Runtime(t) }, func(t *testing.T, ref string) {
			rt := containerdtest.Runtime(t)
			ctx := rt.Namespaced(context.Background())
			for _, name := range []string{ref, "docker.io/" + ref} {
				_ = rt.Client().ImageService().Delete(ctx, name)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.runtime, func(t *testing.T) {
			tc.open(t)
			ref := reg.Host + "/rbx/busybox:" + tc.runtime + "-" + sandbox.LabelValue(time.Now().Format("150405.000"))
			registrytest.Push(t, dk.Client(), "rbx/busybox:latest", ref)
			// Push leaves the tag in Docker; the task must find it only in the registry.
			registrytest.RemoveDockerImage(t, dk.Client(), ref)
			t.Cleanup(func() { tc.forget(t, ref) })

			dir := t.TempDir()
			require.NoError(t, examples.Extract(dir))
			taskPath := filepath.Join(dir, "run-sh-path", "task.yaml")
			data, err := os.ReadFile(taskPath)
			require.NoError(t, err)
			require.Contains(t, string(data), "image: rbx/busybox:latest")
			require.NoError(t, os.WriteFile(taskPath, []byte(strings.Replace(string(data), "image: rbx/busybox:latest", "image: "+ref, 1)), 0o644))
			traj := filepath.Join(dir, "run-sh-path", "trajectory.json")
			ctx := context.Background()

			var out, errOut bytes.Buffer
			code := Run(ctx, []string{"replay", traj, "--runtime", tc.runtime, "--pull", "never"}, Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
			assert.Equal(t, exitUnavailable, code, "%s\n%s", out.String(), errOut.String())
			assert.Contains(t, errOut.String(), ref, "the error names the image")

			// A pull from a registry the operator did not name is refused
			// before any sandbox (docs/isolation.md); named, it pulls.
			host, _, _ := strings.Cut(ref, "/")
			out.Reset()
			errOut.Reset()
			code = Run(ctx, []string{"replay", traj, "--runtime", tc.runtime, "--verify"}, Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
			assert.Equal(t, exitUsage, code, "%s\n%s", out.String(), errOut.String())
			assert.Contains(t, errOut.String(), "--allow-registry "+host)

			out.Reset()
			errOut.Reset()
			code = Run(ctx, []string{"replay", traj, "--runtime", tc.runtime, "--verify", "--allow-registry", host}, Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
			require.Equal(t, exitOK, code, "%s\n%s", out.String(), errOut.String())
			assert.Contains(t, out.String(), "reached checkpoint k=12 of 12")
			assert.Contains(t, errOut.String(), "pulling image "+ref, "the pull is reported on stderr")
		})
	}
}
