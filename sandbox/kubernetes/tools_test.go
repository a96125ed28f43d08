package kubernetes_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes/k8stest"
)

// TestIntegrationToolsReadOnly: the tools the sidecar fills /.rbx with are
// in place when Create returns, and a step as root (the image's user, the
// default capabilities) can neither alter, replace, remount nor overmount
// them, nor see the sidecar's processes; rbx's file transfers, which run
// them, still work after every attempt. On runc and on runsc.
func TestIntegrationToolsReadOnly(t *testing.T) {
	t.Run("runc", func(t *testing.T) { testToolsReadOnly(t, k8stest.Runtime(t)) })
	t.Run("runsc", func(t *testing.T) { testToolsReadOnly(t, k8stest.RunscRuntime(t)) })
}

func testToolsReadOnly(t *testing.T, rt *kubernetes.Runtime) {
	ctx := context.Background()
	t.Cleanup(func() { k8stest.NoneLeft(t, rt) })
	sb, err := rt.Create(ctx, sandbox.Spec{Image: busyboxImage, Labels: map[string]string{"rbx.test": sandbox.LabelValue(t.Name())}})
	t.Cleanup(func() {
		if sb != nil {
			assert.NoError(t, sb.Remove(context.Background()))
		}
	})
	require.NoError(t, err)
	run := func(cmd string) sandbox.ExecResult {
		t.Helper()
		res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: cmd})
		require.NoError(t, err, cmd)
		return res
	}
	require.Equal(t, "0\n", string(run("id -u").Output), "the step runs as root")
	sum := run("/.rbx/busybox sha256sum /.rbx/busybox && ls /.rbx/bin | wc -l")
	require.Zero(t, sum.ExitCode, "the tools are in place when Create returns: %s", sum.Output)
	for _, cmd := range []string{
		"touch /.rbx/new",
		"echo x > /.rbx/busybox",
		"rm -f /.rbx/busybox",
		"mv /.rbx/busybox /.rbx/moved",
		"ln -sf /bin/true /.rbx/bin/cat.new",
		"chmod 777 /.rbx/busybox",
		"mount -o remount,rw /.rbx",
		"mount -t tmpfs none /.rbx",
		"umount -l /.rbx",
	} {
		assert.NotZero(t, run(cmd+" 2>/dev/null").ExitCode, "a root step ran %q", cmd)
	}
	assert.Equal(t, string(sum.Output), string(run("/.rbx/busybox sha256sum /.rbx/busybox && ls /.rbx/bin | wc -l").Output), "the tools are unchanged")
	assert.Equal(t, "0\n", string(run("grep -l '21474836[4]7' /proc/[0-9]*/cmdline 2>/dev/null | wc -l").Output),
		"the sidecar's processes are out of the step's sight")
	require.NoError(t, sb.WriteFile(ctx, "after.txt", []byte("still works"), 0o644))
	got, err := sb.ReadFile(ctx, "after.txt")
	require.NoError(t, err)
	assert.Equal(t, "still works", string(got))
}
