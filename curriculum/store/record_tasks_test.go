package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/curriculum"
)

// TestRegisterAllStoresEveryTask registers 2,000 tasks in one batch,
// reopens the database and registers them again: every task is restored,
// none twice.
func TestRegisterAllStoresEveryTask(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	var tis []curriculum.TaskInfo
	for i := range 2000 {
		tis = append(tis, curriculum.TaskInfo{ID: fmt.Sprintf("t%04d", i), T: 1 + i%7})
	}
	for _, run := range []string{"first", "second"} {
		e, s, err := OpenEngine(ctx, path, nil)
		require.NoError(t, err, run)
		require.NoError(t, e.RegisterAll(tis), run)
		assert.Len(t, e.Tasks(), len(tis), run)
		stored, _, err := s.Load(ctx)
		require.NoError(t, err)
		assert.Len(t, stored, len(tis), run)
		assert.Equal(t, tis[1999].T, stored[1999].T, run)
		require.NoError(t, s.Close())
	}
}
