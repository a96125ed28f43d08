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
		for _, c := range valid {
			ti.Valid = append(ti.Valid, c == '1')
		}
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
	if err := e.Restore(tasks, outs); err != nil {
		return nil, err
	}
	return e, nil
}
