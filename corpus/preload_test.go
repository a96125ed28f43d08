package corpus_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/corpus"
	"github.com/rbx-sandbox/rbx/corpus/corpustest"
)

// TestPreload: the tasks loaded concurrently are what Load returns
// afterwards, each loaded once, failures included.
func TestPreload(t *testing.T) {
	dir := t.TempDir()
	corpustest.Write(t, dir, 40)
	var paths []string
	for i := range 40 {
		paths = append(paths, filepath.Join(dir, corpustest.ID(i), "task.yaml"))
	}
	missing := filepath.Join(dir, "none", "task.yaml")
	c := corpus.NewTasks()
	c.Preload(append(paths, paths[0], missing))
	tests := []struct {
		path    string
		wantID  string
		wantErr bool
	}{
		{path: paths[0], wantID: corpustest.ID(0)},
		{path: paths[39], wantID: corpustest.ID(39)},
		{path: missing, wantErr: true},
	}
	for _, tc := range tests {
		tk, data, err := c.Load(tc.path)
		if tc.wantErr {
			assert.Error(t, err, tc.path)
			continue
		}
		require.NoError(t, err, tc.path)
		assert.Equal(t, tc.wantID, tk.ID)
		assert.NotEmpty(t, data)
		again, _, _ := c.Load(tc.path)
		assert.Same(t, tk, again, "loaded once")
	}
}
