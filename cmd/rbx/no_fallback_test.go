package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostMarkerTask writes a task whose one reference step touches marker,
// an absolute path on the host: in a container it lands in the
// container's filesystem, as a host process it creates the host file.
func hostMarkerTask(t *testing.T, marker string) (dir, traj string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "tasks", "touch-host")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	tk := "id: touch-host\ninstruction: touch a file\nimage: rbx/busybox:latest\nshell: session\nverify: {command: \"true\"}\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "task.yaml"), []byte(tk), 0o644))
	traj = filepath.Join(dir, "trajectory.json")
	doc := fmt.Sprintf(`{"id": "touch-host-ref", "task": "task.yaml", "steps": [
		{"action": "shell", "command": "touch %s", "observation": {"output": "", "exit_code": 0}}]}`, marker)
	require.NoError(t, os.WriteFile(traj, []byte(doc), 0o644))
	return dir, traj
}

// TestAutoRuntimeNeverFallsBackToHost: with the engine unreachable,
// replay, probe and serve under the default --runtime auto exit 5 with a
// message saying why and how to opt in, and run nothing on the host. The
// control shows the same replay with --runtime local does touch the host.
func TestAutoRuntimeNeverFallsBackToHost(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "nothing.sock"))
	t.Setenv("CONTAINERD_ADDRESS", filepath.Join(t.TempDir(), "nothing.sock"))
	marker := filepath.Join(t.TempDir(), "ran-on-host")
	dir, traj := hostMarkerTask(t, marker)
	state := filepath.Join(t.TempDir(), "serve.db")
	tests := []struct {
		name string
		args []string
	}{
		{"replay", []string{"replay", traj}},
		{"probe", []string{"probe", traj, "--rollouts", "1"}},
		{"serve", []string{"serve", "--tasks", filepath.Dir(dir), "--addr", "127.0.0.1:0", "--state", state}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runRBX(t, tt.args...)
			assert.Equal(t, exitUnavailable, code, errOut)
			assert.Contains(t, errOut, "no isolating sandbox runtime answered")
			assert.Contains(t, errOut, "nothing.sock")
			assert.Contains(t, errOut, "--runtime local")
			assert.NotContains(t, out, "listening on")
			assert.NoFileExists(t, marker, "a step ran on the host")
			assert.NoFileExists(t, state, "serve started")
		})
	}
	t.Run("control: --runtime local runs on the host", func(t *testing.T) {
		code, _, errOut := runRBX(t, "replay", traj, "--runtime", "local")
		require.Equal(t, exitOK, code, errOut)
		assert.FileExists(t, marker)
	})
}
