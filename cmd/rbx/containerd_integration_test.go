package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/examples"
	"github.com/rbx-sandbox/rbx/prefilter"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/containerd/containerdtest"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// TestIntegrationContainerdCommands: replay (with the verifier), prefilter
// and serve with --runtime containerd on every bundled example, and
// nothing of this process left in the rbx namespace afterwards. serve is
// driven by `rbx probe TASK-ID --server` with the expert policy: a reset
// at the first and the last checkpoint of each example, played to the end
// and judged by the server's verifier.
func TestIntegrationContainerdCommands(t *testing.T) {
	rt := containerdtest.Runtime(t, "rbx/busybox:latest", "rbx/debian:bookworm")
	t.Cleanup(func() {
		left, err := rt.List(context.Background(), map[string]string{sandbox.LabelOwner: sandbox.Owner})
		assert.NoError(t, err)
		assert.Empty(t, left, "sandboxes left in the rbx namespace")
	})
	dir := t.TempDir()
	require.NoError(t, examples.Extract(dir))
	otp := "otp=" + otpService(t, filepath.Join(dir, "deploy-otp", "task.yaml"))
	ctx := context.Background()
	replayEveryExample(t, dir, "containerd", otp, "--runtime", "containerd")
	t.Run("prefilter", func(t *testing.T) {
		args := []string{"prefilter", dir, "--runtime", "containerd", "--repeats", "1", "--service", otp, "--output", "json"}
		var out, errOut bytes.Buffer
		code := Run(ctx, args, Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
		require.Equal(t, exitOK, code, "%s\n%s", out.String(), errOut.String())
		var rep prefilter.Report
		require.NoError(t, json.Unmarshal(out.Bytes(), &rep), out.String())
		assert.Equal(t, len(examples.Names()), rep.Summary.Kept, "every example kept: %s", out.String())
		assert.Zero(t, rep.Summary.Rejected)
	})
	t.Run("serve", func(t *testing.T) {
		url := serveInProcess(t, "--tasks", dir, "--runtime", "containerd", "--addr", "127.0.0.1:0", "--pool", "1",
			"--service", otp, "--state", filepath.Join(t.TempDir(), "state.db"))
		for _, name := range examples.Names() {
			trs, err := trajectory.Load(filepath.Join(dir, name, "trajectory.json"))
			require.NoError(t, err)
			last := strconv.Itoa(len(trs[0].Steps) - 1)
			code, out, errOut := runRBX(t, "probe", name, "--server", url, "--policy", "expert", "--rollouts", "1",
				"--checkpoints", "0,"+last, "--concurrency", "2", "--output", "json")
			require.Equal(t, exitOK, code, "%s: %s", name, errOut)
			r := decodeProbe(t, out)
			require.Len(t, r.Points, 2, out)
			for _, p := range r.Points {
				assert.Equal(t, 1.0, p.PHat, "%s at k=%d: the expert finishes and the verifier passes", name, p.K)
			}
		}
	})
}
