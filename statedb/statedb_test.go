package statedb

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpenSettings: every handle has the settings durability depends on.
func TestOpenSettings(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	t.Cleanup(func() {
		if db != nil {
			_ = db.Close()
		}
	})
	require.NoError(t, err)
	tests := []struct {
		pragma string
		want   string
	}{
		{"journal_mode", "wal"},
		{"synchronous", "2"}, // FULL
		{"busy_timeout", "10000"},
		{"foreign_keys", "1"},
	}
	for _, tt := range tests {
		t.Run(tt.pragma, func(t *testing.T) {
			var got string
			require.NoError(t, db.QueryRowContext(ctx, "PRAGMA "+tt.pragma).Scan(&got))
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestOpenBadPath: a database that cannot be created is an error naming it.
func TestOpenBadPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	db, err := Open(context.Background(), filepath.Join(file, "state.db"))
	t.Cleanup(func() {
		if db != nil {
			_ = db.Close()
		}
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "state.db")
}
