// Package store persists a curriculum in the SQLite state database
// (package statedb: WAL, synchronous=FULL): tasks and every acknowledged
// outcome, in the order the engine applied them. Reopening replays the
// outcomes into a fresh engine, which restores its state exactly.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/statedb"
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
	owns bool // Close closes db: Open opened it
	cfg  config
	reqs chan *request
	quit chan struct{}
	wg   sync.WaitGroup
	once sync.Once
}

var (
	_ curriculum.Recorder      = (*Store)(nil)
	_ curriculum.TasksRecorder = (*Store)(nil)
)

// Open opens or creates the state database at path (statedb.Open); the
// Store owns the handle and closes it on Close. Other tables of the same
// database (the serve journal) can share the handle through DB.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	db, err := statedb.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open curriculum store: %w", err)
	}
	s, err := New(ctx, db, opts...)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open curriculum store %q: %w", path, err), db.Close())
	}
	s.owns = true
	return s, nil
}

// New stores the curriculum in db, a handle from statedb.Open the caller
// owns and closes after the Store. A handle that would not make every
// commit durable (statedb.CheckDurable) is refused.
func New(ctx context.Context, db *sql.DB, opts ...Option) (*Store, error) {
	cfg := config{maxBatch: 1024}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if err := statedb.CheckDurable(ctx, db); err != nil {
		return nil, fmt.Errorf("curriculum store: %w", err)
	}
	if _, err := db.ExecContext(ctx, schema); err != nil {
		return nil, fmt.Errorf("create curriculum schema: %w", err)
	}
	s := &Store{db: db, cfg: cfg, reqs: make(chan *request), quit: make(chan struct{})}
	s.wg.Add(1)
	go s.writer()
	return s, nil
}

// DB is the handle the Store writes through, for other tables of the same
// state database; it stays usable until the Store is closed (or, for a
// Store from New, until its owner closes it).
func (s *Store) DB() *sql.DB { return s.db }

// Close stops the writer after its current commit and, when Open opened
// it, closes the database.
func (s *Store) Close() error {
	var err error
	s.once.Do(func() {
		close(s.quit)
		s.wg.Wait()
		if s.owns {
			err = s.db.Close()
		}
	})
	return err
}

// RecordTask stores a task's shape (idempotent for the same id).
func (s *Store) RecordTask(ti curriculum.TaskInfo) error {
	return s.submit(&request{task: &ti})
}

// RecordTasks stores many tasks' shapes in one transaction (idempotent
// for the same ids): registering 10,000 tasks costs one commit.
func (s *Store) RecordTasks(tis []curriculum.TaskInfo) error {
	return s.submit(&request{tasks: tis})
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
