package server_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/prefilter"
	"github.com/rbx-sandbox/rbx/server"
)

// datasetTask is the task.yaml of a generated task: two sandbox classes
// (by memory limit), each task with a file of its own in the workdir.
const datasetTask = `id: %[1]s
instruction: append three lines to log
image: rbx/busybox:latest
workdir: /workspace
shell: session
limits: {memory: %[2]s, pids: 64, step_timeout: 20s, episode_timeout: 5m}
files:
  files/: /workspace/
verify:
  command: test "$(wc -l < log)" -ge 3 && grep -qx %[1]s owner.txt
  timeout: 20s
`

const datasetTraj = `{"id": "%[1]s-ref", "task": "task.yaml", "steps": [
  {"action": "shell", "command": "echo 1 >> log", "observation": {"exit_code": 0}},
  {"action": "shell", "command": "echo 2 >> log", "observation": {"exit_code": 0}},
  {"action": "shell", "command": "echo 3 >> log", "observation": {"exit_code": 0}},
  {"action": "shell", "command": "test -s owner.txt", "observation": {"exit_code": 0}}
]}`

// writeDataset writes n generated tasks under dir and loads them as rbx
// serve does.
func writeDataset(t testing.TB, dir string, n int) []server.Entry {
	t.Helper()
	for i := range n {
		id := fmt.Sprintf("ds-%04d", i)
		mem := []string{"128MiB", "192MiB"}[i%2]
		td := filepath.Join(dir, id)
		require.NoError(t, os.MkdirAll(filepath.Join(td, "files"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(td, "task.yaml"), fmt.Appendf(nil, datasetTask, id, mem), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(td, "trajectory.json"), fmt.Appendf(nil, datasetTraj, id), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(td, "files", "owner.txt"), []byte(id+"\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(td, "files", id+".txt"), []byte("mine\n"), 0o644))
	}
	items, err := prefilter.Discover(dir)
	require.NoError(t, err)
	entries, skipped, err := server.References(items)
	require.NoError(t, err)
	require.Empty(t, skipped)
	require.Len(t, entries, n)
	return entries
}
