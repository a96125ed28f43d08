// Package statedb opens the SQLite database (pure Go, modernc.org/sqlite)
// that rbx keeps its durable state in: the curriculum store and the serve
// episode journal share one file, one handle and one set of settings.
package statedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// BusyTimeout is how long a statement waits for a lock held by another
// connection or process before it fails with SQLITE_BUSY, in milliseconds.
const BusyTimeout = 10000

// pragmas apply to every connection. WAL lets readers run beside the
// writer; synchronous=FULL makes every commit durable before it returns,
// since acknowledged outcomes must survive kill -9 and power loss.
var pragmas = []string{
	"journal_mode(WAL)",
	"synchronous(FULL)",
	fmt.Sprintf("busy_timeout(%d)", BusyTimeout),
	"foreign_keys(ON)",
}

// Open opens or creates the state database at path. The handle has one
// connection: SQLite serialises writers anyway, and one connection keeps
// the order of commits the order of calls. The caller closes it.
func Open(ctx context.Context, path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?"+url.Values{"_pragma": pragmas}.Encode())
	if err != nil {
		return nil, fmt.Errorf("open state database %q: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return nil, errors.Join(fmt.Errorf("open state database %q: %w", path, err), db.Close())
	}
	if mode != "wal" {
		return nil, errors.Join(fmt.Errorf("open state database %q: journal mode %q, want wal", path, mode), db.Close())
	}
	return db, nil
}
