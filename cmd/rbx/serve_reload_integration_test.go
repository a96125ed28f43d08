package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox/local"
	"github.com/rbx-sandbox/rbx/server"
)

// TestIntegrationServeReload: a task copied into --tasks is served without
// a restart (the directory polled); a served task whose reference is
// edited is refused on SIGHUP, named in the log, and keeps being served
// as it was.
func TestIntegrationServeReload(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping a test that builds and starts rbx serve")
	}
	rt, err := local.New()
	require.NoError(t, err)
	bin := buildRBX(t)
	dir := t.TempDir()
	tasks := filepath.Join(dir, "tasks")
	require.NoError(t, os.CopyFS(filepath.Join(tasks, "run-sh-path"), os.DirFS("../../examples/run-sh-path")))
	p := startServe(t, rt, bin, "--tasks", tasks, "--runtime", "local", "--state", filepath.Join(dir, "state.db"),
		"--pool", "0", "--reload-interval", "200ms")
	served := func() []string {
		t.Helper()
		resp, err := http.Get(p.url + "/v1/tasks")
		require.NoError(t, err)
		defer resp.Body.Close()
		var list struct {
			Tasks []server.TaskSummary `json:"tasks"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&list))
		var ids []string
		for _, tk := range list.Tasks {
			ids = append(ids, tk.ID)
		}
		return ids
	}
	require.Equal(t, []string{"run-sh-path"}, served())

	second := filepath.Join(tasks, "second")
	require.NoError(t, os.CopyFS(second, os.DirFS("../../examples/run-sh-path")))
	yaml, err := os.ReadFile(filepath.Join(second, "task.yaml"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(second, "task.yaml"), []byte(strings.Replace(string(yaml), "id: run-sh-path", "id: second", 1)), 0o644))
	require.Eventually(t, func() bool { return len(served()) == 2 }, 20*time.Second, 100*time.Millisecond, "the new task is served: %s", p.stderr)
	assert.Contains(t, p.stderr.String(), "tasks reloaded (the directory changed): 1 added (second), 1 unchanged, 0 refused")
	var rr server.ResetResponse
	require.Equal(t, http.StatusOK, post(p.url+"/v1/reset", map[string]any{"task": "second"}, &rr))
	assert.Equal(t, "second", rr.Task)

	traj := filepath.Join(tasks, "run-sh-path", "trajectory.json")
	raw, err := os.ReadFile(traj)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(traj, []byte(strings.Replace(string(raw), `"ls"`, `"ls -la"`, 1)), 0o644))
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGHUP))
	require.Eventually(t, func() bool {
		return strings.Contains(p.stderr.String(), `task \"run-sh-path\": its task file or reference trajectory changed`)
	}, 20*time.Second, 100*time.Millisecond, "the edit is refused, named: %s", p.stderr)
	assert.Equal(t, []string{"run-sh-path", "second"}, served())
	require.Equal(t, http.StatusOK, post(p.url+"/v1/reset", map[string]any{"task": "run-sh-path", "checkpoint": 11}, &rr))
}

// TestIntegrationServeOpenEnvFlag: OpenEnv's routes are served by default
// and not with --no-openenv.
func TestIntegrationServeOpenEnvFlag(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping a test that builds and starts rbx serve")
	}
	rt, err := local.New()
	require.NoError(t, err)
	bin := buildRBX(t)
	for _, tc := range []struct {
		flags []string
		want  int
	}{{nil, http.StatusOK}, {[]string{"--no-openenv"}, http.StatusNotFound}} {
		dir := t.TempDir()
		args := append([]string{"--tasks", "../../examples/run-sh-path", "--runtime", "local", "--state", filepath.Join(dir, "state.db"), "--pool", "0"}, tc.flags...)
		p := startServe(t, rt, bin, args...)
		resp, err := http.Get(p.url + "/health")
		require.NoError(t, err)
		_ = resp.Body.Close()
		assert.Equal(t, tc.want, resp.StatusCode, "%v", tc.flags)
	}
}
