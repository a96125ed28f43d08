package statedb

import (
	"context"
	"database/sql"
	"net/url"
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

// TestCheckDurable: a handle opened with other settings than Open's is
// told apart by what it reports, so OFF or NORMAL cannot pass for FULL.
func TestCheckDurable(t *testing.T) {
	tests := []struct {
		name    string
		pragmas []string
		ok      bool
	}{
		{name: "wal full", pragmas: []string{"journal_mode(WAL)", "synchronous(FULL)"}, ok: true},
		{name: "wal extra", pragmas: []string{"journal_mode(WAL)", "synchronous(EXTRA)"}, ok: true},
		{name: "wal normal", pragmas: []string{"journal_mode(WAL)", "synchronous(NORMAL)"}},
		{name: "wal off", pragmas: []string{"journal_mode(WAL)", "synchronous(OFF)"}},
		{name: "rollback journal full", pragmas: []string{"journal_mode(DELETE)", "synchronous(FULL)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openWith(t, tt.pragmas)
			err := CheckDurable(context.Background(), db)
			if tt.ok {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, ErrNotDurable)
		})
	}
}

// openWith opens a one-connection handle with the given pragmas, as Open
// does but without its check.
func openWith(t *testing.T, pragmas []string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "state.db")+"?"+url.Values{"_pragma": pragmas}.Encode())
	t.Cleanup(func() {
		if db != nil {
			_ = db.Close()
		}
	})
	require.NoError(t, err)
	db.SetMaxOpenConns(1)
	return db
}
