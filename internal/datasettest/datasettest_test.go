package datasettest_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/internal/datasettest"
	"github.com/rbx-sandbox/rbx/prefilter"
	"github.com/rbx-sandbox/rbx/server"
)

func TestWriteLoadsAsServedTasks(t *testing.T) {
	tests := []struct {
		name   string
		n      int
		images []string
	}{
		{name: "one image", n: 3, images: []string{"rbx/busybox:latest"}},
		{name: "three images round-robin", n: 7, images: []string{"a:1", "b:1", "c:1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tasks, err := datasettest.Write(dir, tc.n, tc.images)
			require.NoError(t, err)
			require.Len(t, tasks, tc.n)
			items, err := prefilter.Discover(dir)
			require.NoError(t, err)
			entries, skipped, err := server.References(items)
			require.NoError(t, err)
			require.Empty(t, skipped)
			require.Len(t, entries, tc.n)
			byID := map[string]server.Entry{}
			for _, e := range entries {
				byID[e.Task.ID] = e
			}
			for i, tk := range tasks {
				e, ok := byID[tk.ID]
				require.True(t, ok, tk.ID)
				assert.Equal(t, tc.images[i%len(tc.images)], e.Task.Image)
				assert.Equal(t, tk.Steps, e.Ref.Len())
				assert.GreaterOrEqual(t, e.Ref.Len(), 4)
				assert.LessOrEqual(t, e.Ref.Len(), 6)
				assert.Equal(t, filepath.Join(dir, tk.ID), tk.Dir)
			}
		})
	}
}

func TestWriteRejects(t *testing.T) {
	_, err := datasettest.Write(t.TempDir(), 0, []string{"a:1"})
	assert.ErrorContains(t, err, "want ≥ 1")
	_, err = datasettest.Write(t.TempDir(), 1, nil)
	assert.ErrorContains(t, err, "no image")
}
