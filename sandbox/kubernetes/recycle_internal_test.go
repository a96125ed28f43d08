package kubernetes

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// TestCheckRecycle: without the agent image nothing is recycled; with it,
// a sandbox run as root is, one run as another user is not (an exec runs
// as the container's user, and the agent needs root); a read-only root
// never is (sandbox.CanRecycle).
func TestCheckRecycle(t *testing.T) {
	with := &Runtime{cfg: config{agentImage: "rbx/agent:0123456789ab"}}
	without := &Runtime{}
	for _, tc := range []struct {
		name string
		rt   *Runtime
		spec sandbox.Spec
		ok   bool
	}{
		{"no agent", without, sandbox.Spec{}, false},
		{"root by default", with, sandbox.Spec{}, true},
		{"uid 0", with, sandbox.Spec{User: "0"}, true},
		{"another user", with, sandbox.Spec{User: "1000:1000"}, false},
		{"a read-only root", with, sandbox.Spec{ReadOnlyRoot: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := sandbox.CanRecycle(tc.rt, tc.spec)
			if tc.ok {
				require.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, sandbox.ErrUnsupported)
		})
	}
	assert.True(t, with.Features().Recycle)
	assert.False(t, without.Features().Recycle)
}

// TestRecyclablePod: a recyclable pod installs the agent from its image in
// an init container (it must be there before PID 1 starts), runs it alone
// as the sandbox's PID 1, and has, beside the tools sidecar, a baseline
// container of the same image that runs only the agent and requests
// almost nothing.
func TestRecyclablePod(t *testing.T) {
	r := testRuntime(sandbox.PullNever)
	r.cfg.agentImage = "rbx/agent:0123456789ab"
	pod, err := r.podFor("p", sandbox.Spec{Image: "rbx/busybox:latest", Recycle: true}.WithDefaults())
	require.NoError(t, err)
	require.Len(t, pod.Spec.InitContainers, 1)
	assert.Equal(t, r.cfg.agentImage, pod.Spec.InitContainers[0].Image)
	assert.Equal(t, []string{"/rbx-agent", "install", agentPath}, pod.Spec.InitContainers[0].Command)
	require.Len(t, pod.Spec.Containers, 3)
	assert.Equal(t, toolsName, pod.Spec.Containers[0].Name)
	assert.Equal(t, []string{agentPath, "init"}, sandboxContainer(&pod.Spec).Command)
	base := pod.Spec.Containers[2]
	assert.Equal(t, baselineName, base.Name)
	assert.Equal(t, "rbx/busybox:latest", base.Image)
	assert.Equal(t, []string{agentPath, "init"}, base.Command)
	assert.Equal(t, "5m", base.Resources.Requests.Cpu().String(), "the baseline idles: a request of its limit would halve a node's pods")
	for _, m := range base.VolumeMounts {
		assert.True(t, m.ReadOnly, m.Name)
	}
}
