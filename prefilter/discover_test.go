package prefilter_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/prefilter"
)

func TestDiscover(t *testing.T) {
	items, err := prefilter.Discover(filepath.Join("testdata", "broken"))
	require.NoError(t, err)
	type row struct {
		file    string
		line    int
		id      string
		loadErr bool
	}
	var got []row
	for _, it := range items {
		rel, err := filepath.Rel(filepath.Join("testdata", "broken"), it.Key.File)
		require.NoError(t, err)
		got = append(got, row{rel, it.Key.Line, it.Key.ID, it.Err != nil})
		assert.NotEmpty(t, it.Key.Hash)
	}
	assert.Equal(t, []row{
		{"no-image/trajectory.json", 0, "no-image-ref", false},
		{"toy/diverged.json", 0, "toy-diverged", false},
		{"toy/flaky.json", 0, "toy-flaky", false},
		{"toy/malformed.json", 0, "", true},
		{"toy/mixed.jsonl", 1, "toy-ok", false},
		{"toy/mixed.jsonl", 2, "", true},
		{"toy/timeout.json", 0, "toy-timeout", false},
		{"toy/verify-fails.json", 0, "toy-verify-fails", false},
		{"toy/volatile.json", 0, "toy-volatile", false},
		{"toy/wrong-exit.json", 0, "toy-wrong-exit", false},
	}, got)
}

func TestDiscoverSkipsTaskInputs(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "task.yaml", "id: app\nimage: rbx/busybox:latest\nfiles: {workspace/: /workspace/}\nverify: {command: 'true'}\n")
	write(t, dir, "workspace/package.json", "{not json")
	write(t, dir, "workspace/steps.json", `{"steps": []}`)
	write(t, dir, "other.json", `{"id": "other", "image": "x", "verify": {"command": "true"}}`)
	write(t, dir, "run.json", `{"id": "r", "task": "app", "steps": [{"action": "noop"}]}`)
	write(t, dir, "bad-task/t.json", `{"id": "r2", "task": "task.json", "steps": [{"action": "noop"}]}`)
	write(t, dir, "bad-task/task.json", `{"id": "broken",`)
	items, err := prefilter.Discover(dir)
	require.NoError(t, err)
	require.Len(t, items, 2, "the workspace's JSON and the task files are not trajectories; the broken task is reported once")
	assert.Equal(t, "r2", items[0].Key.ID)
	require.Error(t, items[0].Err)
	assert.Contains(t, items[0].Err.Error(), "task.json:1:")
	assert.Equal(t, "r", items[1].Key.ID)
	require.NoError(t, items[1].Err)
	assert.Equal(t, "app", items[1].Task.ID, "the task id resolves to the task file next to it")
}

func TestDiscoverMissingPath(t *testing.T) {
	_, err := prefilter.Discover(filepath.Join(t.TempDir(), "nope"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

// TestDiscoverThroughLinks: a mounted ConfigMap's layout (its files are
// links into a hidden directory) is discovered through its links, the
// hidden directory itself not a second time, the task's directories not
// walked through their links; a dangling link is no file.
func TestDiscoverThroughLinks(t *testing.T) {
	src := filepath.Join("..", "examples", "run-sh-path")
	dir := t.TempDir()
	hidden := filepath.Join(dir, "..2026_12_03")
	require.NoError(t, os.CopyFS(hidden, os.DirFS(src)))
	require.NoError(t, os.Symlink(filepath.Base(hidden), filepath.Join(dir, "..data")))
	entries, err := os.ReadDir(hidden)
	require.NoError(t, err)
	for _, e := range entries { // task.yaml, trajectory.json and the directories the task copies
		require.NoError(t, os.Symlink(filepath.Join("..data", e.Name()), filepath.Join(dir, e.Name())))
	}
	require.NoError(t, os.Symlink("missing.json", filepath.Join(dir, "dangling.json")))
	items, err := prefilter.Discover(dir)
	require.NoError(t, err)
	require.Len(t, items, 1)
	require.NoError(t, items[0].Err)
	assert.Equal(t, "run-sh-path", items[0].Task.ID)
	assert.Equal(t, filepath.Join(dir, "trajectory.json"), items[0].Key.File)
}
