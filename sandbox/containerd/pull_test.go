package containerd_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/containerd"
	"github.com/rbx-sandbox/rbx/sandbox/containerd/containerdtest"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
	"github.com/rbx-sandbox/rbx/sandbox/registrytest"
)

// TestIntegrationPullPolicy: rbx's busybox image pushed to a registry on
// loopback (started here) and absent locally is refused under "never",
// pulled and run under "missing", and a stopped registry is a typed
// pull_failed error with the registry's reason under "always".
func TestIntegrationPullPolicy(t *testing.T) {
	newRuntime(t) // skips without containerd; builds the image in Docker
	reg := registrytest.Start(t, containerdtest.Required())
	ref := reg.Host + "/rbx/busybox:pull-" + sandbox.LabelValue(time.Now().Format("150405.000"))
	registrytest.Push(t, dockertest.Runtime(t).Client(), testImage, ref)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	open := func(p sandbox.PullPolicy) *containerd.Runtime {
		rt, err := containerd.New(ctx, containerd.WithPullPolicy(p)) // no image source: the registry only
		require.NoError(t, err)
		t.Cleanup(func() { _ = rt.Close() })
		return rt
	}
	never := open(sandbox.PullNever)
	t.Cleanup(func() {
		_ = never.Client().ImageService().Delete(never.Namespaced(context.Background()), "docker.io/"+ref)
		_ = never.Client().ImageService().Delete(never.Namespaced(context.Background()), ref)
	})

	_, err := never.Create(ctx, sandbox.Spec{Image: ref})
	require.ErrorIs(t, err, sandbox.ErrImageMissing)

	sb := newSandbox(t, open(sandbox.PullMissing), sandbox.Spec{Image: ref, Mode: sandbox.ModeExec})
	res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "echo pulled"})
	require.NoError(t, err)
	assert.Equal(t, "pulled\n", string(res.Output))
	present, err := never.ImagePresent(ctx, ref)
	require.NoError(t, err)
	assert.True(t, present, "the pulled image stays in the namespace")

	reg.Stop()
	_, err = open(sandbox.PullAlways).Create(ctx, sandbox.Spec{Image: ref})
	require.ErrorIs(t, err, sandbox.ErrPullFailed)
	assert.Contains(t, err.Error(), "connection refused", "the registry's reason")
}
