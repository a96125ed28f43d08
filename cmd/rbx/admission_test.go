package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
)

// hostileExample is run-sh-path whose task asks for root-level kernel
// interfaces and a network, as a downloaded dataset's task could.
func hostileExample(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tasks", "hostile")
	require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "examples", "run-sh-path"))))
	path := filepath.Join(dir, "task.yaml")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	s := strings.Replace(string(data), "image: rbx/busybox:latest", "image: rbx/busybox:latest\ncap_add: [SYS_ADMIN, SYS_PTRACE, NET_ADMIN, SYS_MODULE]", 1)
	s = strings.Replace(s, "network: none", "network: bridge", 1)
	require.NotEqual(t, string(data), s)
	require.NoError(t, os.WriteFile(path, []byte(s), 0o644))
	return dir
}

// TestAdmissionRefusesAtLoad: every command that runs sandboxes refuses
// the hostile task before any sandbox exists, exit 2, naming the field
// and the flag that would allow it.
func TestAdmissionRefusesAtLoad(t *testing.T) {
	dir := hostileExample(t)
	traj, tk := filepath.Join(dir, "trajectory.json"), filepath.Join(dir, "task.yaml")
	for name, args := range map[string][]string{
		"replay":    {"replay", traj, "--task", tk},
		"prefilter": {"prefilter", filepath.Dir(dir)},
		"serve":     {"serve", "--tasks", filepath.Dir(dir), "--addr", "127.0.0.1:0"},
		"probe":     {"probe", tk, "--trajectory", traj},
		"intervene": {"intervene", tk, "--trajectory", traj, "--policy", "expert"},
	} {
		t.Run(name, func(t *testing.T) {
			code, _, errOut := runRBX(t, args...)
			assert.Equal(t, 2, code, errOut)
			assert.Contains(t, errOut, "task.yaml:")
			assert.Contains(t, errOut, `cap_add[0]: "SYS_ADMIN"`)
			assert.Contains(t, errOut, "--allow-cap SYS_ADMIN allows it")
			assert.Contains(t, errOut, "--allow-network allows it")
		})
	}
	t.Run("--oci-runtime on a backend without it", func(t *testing.T) {
		code, _, errOut := runRBX(t, "replay", filepath.Join("..", "..", "examples", "run-sh-path", "trajectory.json"), "--runtime", "local", "--oci-runtime", "runsc")
		assert.Equal(t, 2, code, errOut)
		assert.Contains(t, errOut, "--oci-runtime runsc: only the docker, containerd, kubernetes runtimes take it, not local")
	})
	t.Run("a policy file", func(t *testing.T) {
		pol := filepath.Join(t.TempDir(), "policy.yaml")
		require.NoError(t, os.WriteFile(pol, []byte("allow_everything: true\n"), 0o644))
		code, _, errOut := runRBX(t, "replay", traj, "--task", tk, "--task-policy", pol)
		assert.Equal(t, 2, code)
		assert.Contains(t, errOut, "policy.yaml")
	})
}

// TestIntegrationAdmissionAllowed: with the operator's flags, the same
// task runs, and its sandbox has what it asked for.
func TestIntegrationAdmissionAllowed(t *testing.T) {
	dockertest.Skip(t)
	dir := hostileExample(t)
	pol := filepath.Join(t.TempDir(), "policy.yaml")
	require.NoError(t, os.WriteFile(pol, []byte("allow_caps: [SYS_PTRACE, NET_ADMIN, SYS_MODULE]\n"), 0o644))
	code, out, errOut := runRBX(t, "replay", filepath.Join(dir, "trajectory.json"), "--task", filepath.Join(dir, "task.yaml"),
		"--verify", "--allow-cap", "SYS_ADMIN", "--task-policy", pol, "--allow-network")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out+errOut, "reached checkpoint")
}
