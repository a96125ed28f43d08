package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTasksFingerprint: what changes a reload's fingerprint, including a
// mounted ConfigMap's update (its files are links into a hidden directory
// swapped whole), and what does not (hidden files, other files).
func TestTasksFingerprint(t *testing.T) {
	dir := t.TempDir()
	// A ConfigMap volume's layout: task.yaml -> ..data/task.yaml, ..data -> ..v1.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "..v1"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "..v1", "task.yaml"), []byte("id: a\n"), 0o644))
	require.NoError(t, os.Symlink("..v1", filepath.Join(dir, "..data")))
	require.NoError(t, os.Symlink(filepath.Join("..data", "task.yaml"), filepath.Join(dir, "task.yaml")))
	fp := func() [32]byte {
		t.Helper()
		sum, err := tasksFingerprint([]string{dir})
		require.NoError(t, err)
		return sum
	}
	first := fp()
	assert.Equal(t, first, fp(), "stable")

	require.NoError(t, os.WriteFile(filepath.Join(dir, ".hidden.yaml"), []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644))
	assert.Equal(t, first, fp(), "hidden and non-task files do not count")

	// The ConfigMap is updated: a new hidden directory, ..data swapped.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "..v2"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "..v2", "task.yaml"), []byte("id: a\nimage: b\n"), 0o644))
	require.NoError(t, os.Chtimes(filepath.Join(dir, "..v2", "task.yaml"), time.Now().Add(time.Minute), time.Now().Add(time.Minute)))
	require.NoError(t, os.Symlink("..v2", filepath.Join(dir, "..data.tmp")))
	require.NoError(t, os.Rename(filepath.Join(dir, "..data.tmp"), filepath.Join(dir, "..data")))
	assert.NotEqual(t, first, fp(), "a ConfigMap update is seen through its links")

	second := fp()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "new"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "new", "trajectory.json"), []byte("{}"), 0o644))
	assert.NotEqual(t, second, fp(), "a new task file")
}
