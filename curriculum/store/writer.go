package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// request is one row to commit; done receives the commit's result.
type request struct {
	task    *curriculumTask
	tasks   []curriculumTask
	outcome *curriculumOutcome
	rebase  *curriculumRebase
	done    chan error
}

// writer commits requests in groups: it takes one request, then whatever
// else is already waiting (up to maxBatch), and commits them in one
// transaction, so concurrent callers share one fsync.
func (s *Store) writer() {
	defer s.wg.Done()
	for {
		var first *request
		select {
		case first = <-s.reqs:
		case <-s.quit:
			return
		}
		batch := []*request{first}
	drain:
		for len(batch) < s.cfg.maxBatch {
			select {
			case r := <-s.reqs:
				batch = append(batch, r)
			default:
				break drain
			}
		}
		err := s.commit(batch)
		for _, r := range batch {
			r.done <- err
		}
	}
}

func (s *Store) commit(batch []*request) (err error) {
	ctx := context.Background()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, tx.Rollback())
		}
	}()
	for _, r := range batch {
		switch {
		case r.task != nil:
			err = insertTasks(ctx, tx, []curriculumTask{*r.task})
		case r.tasks != nil:
			err = insertTasks(ctx, tx, r.tasks)
		case r.outcome != nil:
			_, err = tx.ExecContext(ctx, "INSERT INTO outcomes (task, k, success) VALUES (?, ?, ?)", r.outcome.Task, r.outcome.K, r.outcome.Success)
		case r.rebase != nil:
			rb := r.rebase
			_, err = tx.ExecContext(ctx, `INSERT INTO rebases (after, task, k, version, t, valid)
				VALUES ((SELECT coalesce(max(seq), 0) FROM outcomes), ?, ?, ?, ?, ?)`, rb.Task, rb.K, rb.Version, rb.To.T, encodeValid(rb.To.Valid))
		}
		if err != nil {
			return fmt.Errorf("insert: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// insertTasks stores task shapes through one prepared statement.
func insertTasks(ctx context.Context, tx *sql.Tx, tis []curriculumTask) error {
	st, err := tx.PrepareContext(ctx, "INSERT OR IGNORE INTO tasks (id, t, valid) VALUES (?, ?, ?)")
	if err != nil {
		return err
	}
	for _, ti := range tis {
		if _, err := st.ExecContext(ctx, ti.ID, ti.T, encodeValid(ti.Valid)); err != nil {
			return errors.Join(fmt.Errorf("task %q: %w", ti.ID, err), st.Close())
		}
	}
	return st.Close()
}

func encodeValid(v []bool) string {
	var b strings.Builder
	for _, ok := range v {
		if ok {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	}
	return b.String()
}

func decodeValid(s string) []bool {
	v := make([]bool, 0, len(s))
	for _, c := range s {
		v = append(v, c == '1')
	}
	return v
}
