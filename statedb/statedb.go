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
	if err := CheckDurable(ctx, db); err != nil {
		return nil, errors.Join(fmt.Errorf("open state database %q: %w", path, err), db.Close())
	}
	return db, nil
}

// ErrNotDurable is returned for a handle whose commits would not survive a
// crash as rbx promises (journal mode other than WAL, synchronous below
// FULL).
var ErrNotDurable = errors.New("state database not durable")

// CheckDurable returns an error wrapping ErrNotDurable unless db commits in
// WAL mode with synchronous=FULL (or EXTRA). It reads the settings through
// db itself, so for a handle of one connection (as Open makes) they are
// the settings every write of that handle uses. Users of a handle they did
// not open call it, so that one opened elsewhere cannot lower durability
// quietly.
func CheckDurable(ctx context.Context, db *sql.DB) error {
	var mode string
	var sync int
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return fmt.Errorf("read journal mode: %w", err)
	}
	if err := db.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&sync); err != nil {
		return fmt.Errorf("read synchronous: %w", err)
	}
	switch {
	case mode != "wal":
		return fmt.Errorf("%w: journal mode %q, want wal", ErrNotDurable, mode)
	case sync < syncFull:
		return fmt.Errorf("%w: synchronous=%d, want %d (FULL) or more", ErrNotDurable, sync, syncFull)
	}
	return nil
}

// syncFull is SQLite's numeric value of synchronous=FULL (OFF 0, NORMAL 1,
// FULL 2, EXTRA 3).
const syncFull = 2
