package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/rbx-sandbox/rbx/curriculum"
)

type (
	curriculumTask    = curriculum.TaskInfo
	curriculumOutcome = curriculum.Outcome
	curriculumRebase  = curriculum.Rebase
)

// Load returns every stored task and every stored outcome in commit order.
func (s *Store) Load(ctx context.Context) ([]curriculum.TaskInfo, []curriculum.Outcome, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT id, t, valid FROM tasks ORDER BY rowid")
	if err != nil {
		return nil, nil, fmt.Errorf("load tasks: %w", err)
	}
	var tasks []curriculum.TaskInfo
	for rows.Next() {
		var ti curriculum.TaskInfo
		var valid string
		if err := rows.Scan(&ti.ID, &ti.T, &valid); err != nil {
			return nil, nil, errors.Join(fmt.Errorf("load tasks: %w", err), rows.Close())
		}
		ti.Valid = decodeValid(valid)
		tasks = append(tasks, ti)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, nil, fmt.Errorf("load tasks: %w", err)
	}
	rows, err = s.db.QueryContext(ctx, "SELECT task, k, success FROM outcomes ORDER BY seq")
	if err != nil {
		return nil, nil, fmt.Errorf("load outcomes: %w", err)
	}
	var outs []curriculum.Outcome
	for rows.Next() {
		var o curriculum.Outcome
		if err := rows.Scan(&o.Task, &o.K, &o.Success); err != nil {
			return nil, nil, errors.Join(fmt.Errorf("load outcomes: %w", err), rows.Close())
		}
		outs = append(outs, o)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, nil, fmt.Errorf("load outcomes: %w", err)
	}
	return tasks, outs, nil
}

// Rebases returns every stored reference refresh in commit order, each
// with After set to the number of stored outcomes before it.
func (s *Store) Rebases(ctx context.Context) ([]curriculum.Rebase, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT r.task, r.k, r.version, r.t, r.valid,
		(SELECT count(*) FROM outcomes o WHERE o.seq <= r.after) FROM rebases r ORDER BY r.seq`)
	if err != nil {
		return nil, fmt.Errorf("load rebases: %w", err)
	}
	var out []curriculum.Rebase
	for rows.Next() {
		var rb curriculum.Rebase
		var valid string
		if err := rows.Scan(&rb.Task, &rb.K, &rb.Version, &rb.To.T, &valid, &rb.After); err != nil {
			return nil, errors.Join(fmt.Errorf("load rebases: %w", err), rows.Close())
		}
		rb.To.ID, rb.To.Valid = rb.Task, decodeValid(valid)
		out = append(out, rb)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, fmt.Errorf("load rebases: %w", err)
	}
	return out, nil
}

// OpenEngine opens the store at path and returns an engine restored from
// it that records into it. Reopen with the same engine options: the stored
// outcomes are replayed through them.
func OpenEngine(ctx context.Context, path string, storeOpts []Option, opts ...curriculum.Option) (*curriculum.Engine, *Store, error) {
	s, err := Open(ctx, path, storeOpts...)
	if err != nil {
		return nil, nil, err
	}
	e, err := NewEngine(ctx, s, opts...)
	if err != nil {
		return nil, nil, errors.Join(fmt.Errorf("restore curriculum from %s: %w", path, err), s.Close())
	}
	return e, s, nil
}

// NewEngine returns an engine restored from s that records into s.
func NewEngine(ctx context.Context, s *Store, opts ...curriculum.Option) (*curriculum.Engine, error) {
	e, err := curriculum.New(append(opts, curriculum.WithRecorder(s))...)
	if err != nil {
		return nil, err
	}
	tasks, outs, err := s.Load(ctx)
	if err != nil {
		return nil, err
	}
	rebases, err := s.Rebases(ctx)
	if err != nil {
		return nil, err
	}
	if err := e.Restore(tasks, outs, rebases...); err != nil {
		return nil, err
	}
	return e, nil
}
