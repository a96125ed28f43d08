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
	"github.com/rbx-sandbox/rbx/server"
	"github.com/rbx-sandbox/rbx/server/client"
)

// TestIntegrationContainerdCommands: replay, prefilter and serve with
// --runtime containerd on a bundled example, and nothing of this process
// left in the rbx namespace afterwards.
func TestIntegrationContainerdCommands(t *testing.T) {
	rt := containerdtest.Runtime(t, "rbx/busybox:latest")
	t.Cleanup(func() {
		left, err := rt.List(context.Background(), map[string]string{sandbox.LabelOwner: sandbox.Owner})
		assert.NoError(t, err)
		assert.Empty(t, left, "sandboxes left in the rbx namespace")
	})
	dir := t.TempDir()
	require.NoError(t, examples.Extract(dir))
	traj := filepath.Join(dir, "run-sh-path", "trajectory.json")
	ctx := context.Background()

	t.Run("replay", func(t *testing.T) {
		var out, errOut bytes.Buffer
		code := Run(ctx, []string{"replay", traj, "--runtime", "containerd"}, Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
		require.Equal(t, exitOK, code, "%s\n%s", out.String(), errOut.String())
		assert.Contains(t, out.String(), "reached checkpoint k=12 of 12")
		assert.Contains(t, errOut.String(), "on containerd sandbox")
	})
	t.Run("prefilter", func(t *testing.T) {
		var out, errOut bytes.Buffer
		code := Run(ctx, []string{"prefilter", traj, "--runtime", "containerd", "--repeats", "1"}, Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
		require.Equal(t, exitOK, code, "%s\n%s", out.String(), errOut.String())
		assert.Contains(t, out.String(), "kept 1, rejected 0")
	})
	t.Run("serve", func(t *testing.T) {
		tasks := filepath.Join(t.TempDir(), "tasks")
		require.NoError(t, os.CopyFS(filepath.Join(tasks, "run-sh-path"), os.DirFS(filepath.Join(dir, "run-sh-path"))))
		url := serveInProcess(t, "--tasks", tasks, "--runtime", "containerd", "--addr", "127.0.0.1:0", "--pool", "1",
			"--state", filepath.Join(t.TempDir(), "state.db"))
		c, err := client.New(url)
		require.NoError(t, err)
		cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		rr, err := c.Reset(cctx, server.ResetRequest{Task: "run-sh-path", Checkpoint: []byte("11")})
		require.NoError(t, err)
		require.Len(t, rr.Episodes, 1)
		sr, err := c.Step(cctx, rr.Episodes[0].ID, server.StepRequest{ToolCall: &server.ToolCall{Name: "shell", Arguments: []byte(`{"command": "./run.sh"}`)}})
		require.NoError(t, err)
		assert.Equal(t, "total=14024\n", sr.Observation.Output)
		ev, err := c.Evaluate(cctx, rr.Episodes[0].ID)
		require.NoError(t, err)
		assert.True(t, ev.Success)
	})
}
