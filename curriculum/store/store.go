// Package store persists a curriculum in an embedded SQLite database (pure
// Go, modernc.org/sqlite) in WAL mode: tasks and every acknowledged outcome,
// in the order the engine applied them. Reopening replays the outcomes into
// a fresh engine, which restores its state exactly.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"sync"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/rbx-sandbox/rbx/curriculum"
)

// ErrClosed is returned by calls on a closed Store.
var ErrClosed = errors.New("store closed")

const schema = `
CREATE TABLE IF NOT EXISTS tasks (
	id    TEXT PRIMARY KEY,
	t     INTEGER NOT NULL,
	valid TEXT NOT NULL -- one '1' or '0' per checkpoint 0..T-1
);
CREATE TABLE IF NOT EXISTS outcomes (
	seq     INTEGER PRIMARY KEY AUTOINCREMENT,
	task    TEXT NOT NULL REFERENCES tasks(id),
	k       INTEGER NOT NULL,
	success INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS rebases (
	seq     INTEGER PRIMARY KEY AUTOINCREMENT,
	after   INTEGER NOT NULL, -- outcomes.seq of the last outcome stored before it (0: none)
	task    TEXT NOT NULL REFERENCES tasks(id),
	k       INTEGER NOT NULL,
	version INTEGER NOT NULL,
	t       INTEGER NOT NULL,
	valid   TEXT NOT NULL     -- the new shape, as in tasks
);`

// Store is a curriculum.Recorder backed by SQLite. Writes from concurrent
// callers are grouped into one transaction per commit (a commit group), and
// each call returns only after the commit that holds its row.
type Store struct {
	db   *sql.DB
	cfg  config
	reqs chan *request
	quit chan struct{}
	wg   sync.WaitGroup
	once sync.Once
}

var _ curriculum.Recorder = (*Store)(nil)

// Open opens or creates the database at path.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	cfg := config{sync: "FULL", maxBatch: 1024}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	q := url.Values{"_pragma": {"journal_mode(WAL)", "synchronous(" + cfg.sync + ")", "busy_timeout(5000)", "foreign_keys(ON)"}}
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open curriculum store %s: %w", path, err)
	}
	db.SetMaxOpenConns(1) // one writer; SQLite serializes writers anyway
	if _, err := db.ExecContext(ctx, schema); err != nil {
		return nil, errors.Join(fmt.Errorf("create schema in %s: %w", path, err), db.Close())
	}
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		return nil, errors.Join(fmt.Errorf("%s: journal mode %q, want wal: %v", path, mode, err), db.Close())
	}
	s := &Store{db: db, cfg: cfg, reqs: make(chan *request), quit: make(chan struct{})}
	s.wg.Add(1)
	go s.writer()
	return s, nil
}

// Close stops the writer after its current commit and closes the database.
func (s *Store) Close() error {
	var err error
	s.once.Do(func() {
		close(s.quit)
		s.wg.Wait()
		err = s.db.Close()
	})
	return err
}

// RecordTask stores a task's shape (idempotent for the same id).
func (s *Store) RecordTask(ti curriculum.TaskInfo) error {
	return s.submit(&request{task: &ti})
}

// RecordOutcome stores one outcome; it returns after the commit.
func (s *Store) RecordOutcome(o curriculum.Outcome) error {
	return s.submit(&request{outcome: &o})
}

// RecordRebase stores a reference refresh after the outcomes stored so
// far; it returns after the commit.
func (s *Store) RecordRebase(rb curriculum.Rebase) error {
	return s.submit(&request{rebase: &rb})
}

// submit hands r to the writer, which always answers what it has taken.
func (s *Store) submit(r *request) error {
	r.done = make(chan error, 1)
	select {
	case s.reqs <- r:
		return <-r.done
	case <-s.quit:
		return ErrClosed
	}
}
