package docker_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/prefix"
	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
	"github.com/rbx-sandbox/rbx/sandbox/sandboxtest"
	"github.com/rbx-sandbox/rbx/task"
)

// TestIntegrationConformanceRunsc runs the suite on gVisor (the engine's
// runsc runtime): every case that applies must pass (docs/isolation.md
// lists what differs).
func TestIntegrationConformanceRunsc(t *testing.T) {
	rt := dockertest.RunscRuntime(t)
	ensureImage(t, rt.Client())
	sandboxtest.Run(t, rt, sandbox.Spec{Image: testImage})
}

// TestIntegrationRunscTaskPidsLimit: a task's small pids limit
// (run-sh-path says 128) does not end a runsc sandbox while rbx reads from
// it (the prefix cache's scan after provisioning: a session and execs at
// once). Without runscPidsFloor the sandbox exited 2 there in 4 of 6 runs;
// three sandboxes make a miss unlikely.
func TestIntegrationRunscTaskPidsLimit(t *testing.T) {
	tk, err := task.Load("../../examples/run-sh-path/task.yaml")
	require.NoError(t, err)
	rt := dockertest.RunscRuntime(t, tk.Image)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		spec := provision.Spec(tk)
		require.Equal(t, int64(128), spec.Limits.Pids)
		sb := newSandbox(t, rt, spec)
		require.NoError(t, provision.Prepare(ctx, sb, tk))
		src, err := prefix.Begin(ctx, sb, true)
		require.NoError(t, err)
		_, err = src.Scan(ctx)
		require.NoError(t, err, "sandbox %d", i)
		res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "echo alive"})
		require.NoError(t, err)
		assert.Equal(t, "alive\n", string(res.Output))
	}
}
