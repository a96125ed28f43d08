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
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes/k8stest"
	"github.com/rbx-sandbox/rbx/server"
	"github.com/rbx-sandbox/rbx/server/client"
)

// TestIntegrationKubernetesCommands: every bundled example replays and
// passes its verifier with --runtime kubernetes; serve answers a reset
// from its warm pool; gc removes a pod left by a dead owner, of this host
// (by /proc) or of another (by its stale Lease); and no pod of this process
// is left on the cluster afterwards.
func TestIntegrationKubernetesCommands(t *testing.T) {
	rt := k8stest.Runtime(t)
	t.Cleanup(func() { k8stest.NoneLeft(t, rt) })
	kc, ns := os.Getenv(k8stest.KubeconfigEnv), k8stest.Namespace()
	k8sArgs := []string{"--runtime", "kubernetes", "--kubeconfig", kc, "--namespace", ns}
	dir := t.TempDir()
	require.NoError(t, examples.Extract(dir))
	ctx := context.Background()
	replayEveryExample(t, dir, "kubernetes", "otp="+otpService(t, filepath.Join(dir, "deploy-otp", "task.yaml")), k8sArgs...)
	t.Run("serve", func(t *testing.T) {
		tasks := filepath.Join(t.TempDir(), "tasks")
		require.NoError(t, os.CopyFS(filepath.Join(tasks, "run-sh-path"), os.DirFS(filepath.Join(dir, "run-sh-path"))))
		url := serveInProcess(t, append([]string{"--tasks", tasks, "--addr", "127.0.0.1:0", "--pool", "1",
			"--state", filepath.Join(t.TempDir(), "state.db")}, k8sArgs...)...)
		c, err := client.New(url)
		require.NoError(t, err)
		cctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
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
	t.Run("gc", func(t *testing.T) {
		// A dead owner of this host (no such pid): plain gc removes its pods
		// and leaves live owners' (other test packages run meanwhile) alone.
		host, err := os.Hostname()
		require.NoError(t, err)
		dead := host + "_4194300_1"
		require.True(t, sandbox.ValidLabelValue(dead), dead)
		other := k8stest.Runtime(t, kubernetes.WithOwner(dead))
		sb, err := other.Create(ctx, sandbox.Spec{Image: "rbx/busybox:latest", Mode: sandbox.ModeExec})
		require.NoError(t, err)
		t.Cleanup(func() { _ = sb.Remove(context.Background()) })
		var out, errOut bytes.Buffer
		code := Run(ctx, append([]string{"gc"}, k8sArgs...), Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
		require.Equal(t, exitOK, code, "%s\n%s", out.String(), errOut.String())
		assert.Contains(t, out.String(), sb.ID()[:12], "gc's table shows short ids")
		left, err := rt.List(ctx, map[string]string{sandbox.LabelOwner: dead})
		require.NoError(t, err)
		assert.Empty(t, left, "gc removed the dead owner's pod")
	})
	t.Run("gc by lease", func(t *testing.T) {
		// An owner of another host (a restarted in-cluster rbx serve pod):
		// /proc cannot tell, its Lease can. Fresh, its pod is spared; once
		// the lease is older than --heartbeat-max-age, plain gc removes the
		// pod and the lease.
		gone := "rbx-serve-5d8f9-old_1_4242"
		other := k8stest.Runtime(t, kubernetes.WithOwner(gone), kubernetes.WithHeartbeatEvery(time.Hour))
		t.Cleanup(func() { assert.NoError(t, other.ForgetHeartbeat(context.Background(), gone)) })
		sb, err := other.Create(ctx, sandbox.Spec{Image: "rbx/busybox:latest", Mode: sandbox.ModeExec})
		t.Cleanup(func() {
			if sb != nil {
				_ = sb.Remove(context.Background())
			}
		})
		require.NoError(t, err)
		gc := func() string {
			t.Helper()
			var out, errOut bytes.Buffer
			code := Run(ctx, append([]string{"gc"}, k8sArgs...), Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
			require.Equal(t, exitOK, code, "%s\n%s", out.String(), errOut.String())
			return out.String()
		}
		assert.NotContains(t, gc(), sb.ID()[:12], "a fresh lease: the owner is alive")
		require.NoError(t, other.Beat(ctx, gone, time.Now().Add(-10*time.Minute)))
		assert.Contains(t, gc(), sb.ID()[:12], "a stale lease: the owner is dead")
		left, err := rt.List(ctx, map[string]string{sandbox.LabelOwner: gone})
		require.NoError(t, err)
		assert.Empty(t, left, "gc removed the pod of the owner elsewhere")
		beats, err := rt.Heartbeats(ctx)
		require.NoError(t, err)
		assert.NotContains(t, beats, gone, "and its lease")
	})
}
