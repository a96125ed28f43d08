package docker_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
	"github.com/rbx-sandbox/rbx/sandbox/registrytest"
)

// TestIntegrationPullPolicy: an image pushed to a registry on loopback
// (started here) and removed locally is refused under "never", pulled and
// run under "missing", and a stopped registry is a typed pull_failed error
// with the registry's reason under "always".
func TestIntegrationPullPolicy(t *testing.T) {
	base := newRuntime(t)
	reg := registrytest.Start(t, os.Getenv("RBX_REQUIRE_DOCKER") == "1")
	ref := reg.Host + "/rbx/busybox:pull-" + sandbox.LabelValue(time.Now().Format("150405.000"))
	registrytest.Push(t, base.Client(), testImage, ref)
	t.Cleanup(func() { registrytest.RemoveDockerImage(t, base.Client(), ref) })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	open := func(p sandbox.PullPolicy) *docker.Runtime {
		rt, err := docker.New(docker.WithPullPolicy(p))
		require.NoError(t, err)
		t.Cleanup(func() { _ = rt.Close() })
		return rt
	}

	_, err := open(sandbox.PullNever).Create(ctx, sandbox.Spec{Image: ref})
	require.ErrorIs(t, err, sandbox.ErrImageMissing)

	sb := newSandbox(t, open(sandbox.PullMissing), sandbox.Spec{Image: ref, Mode: sandbox.ModeExec})
	res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "echo pulled"})
	require.NoError(t, err)
	assert.Equal(t, "pulled\n", string(res.Output))

	reg.Stop()
	_, err = open(sandbox.PullAlways).Create(ctx, sandbox.Spec{Image: ref})
	require.ErrorIs(t, err, sandbox.ErrPullFailed)
	assert.Contains(t, err.Error(), "connection refused", "the registry's reason")
}
