package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/rbx-sandbox/rbx/curriculum"
)

// restoreReferences loads the versions a previous process adopted, so
// that resets use the latest one. Version 1 must still be the reference
// loaded from disk: the later versions derive from it.
func (s *Server) restoreReferences(ctx context.Context) error {
	if err := s.jr.initReferences(ctx); err != nil {
		return err
	}
	rows, err := s.jr.loadReferences(ctx)
	if err != nil {
		return err
	}
	for _, row := range rows {
		cur := s.refs.current(row.meta.Task)
		switch {
		case cur == nil:
			s.cfg.log.Warn("serve: stored reference of a task not served", "task", row.meta.Task, "version", row.meta.Version)
		case row.meta.Version == 1:
			if row.ref.ID != cur.Ref.ID || row.ref.Len() != cur.Ref.Len() {
				return fmt.Errorf("task %s: the reference loaded (%s, %d steps) is not version 1 of the state database (%s, %d steps), which later versions derive from; serve it with a new --state",
					row.meta.Task, cur.Ref.ID, cur.Ref.Len(), row.ref.ID, row.ref.Len())
			}
		default:
			e := &Entry{Task: cur.Task, Ref: row.ref, version: row.meta.Version}
			if err := s.refs.add(e, row.meta); err != nil {
				return fmt.Errorf("restore references: %w", err)
			}
		}
	}
	return nil
}

// registerTask registers a task with the curriculum and brings the
// curriculum to the task's current reference version: a curriculum
// restored at an older version (a crash between storing a version and
// rebasing, or a new curriculum database) is rebased version by version.
func (s *Server) registerTask(id string) error {
	latest := s.refs.current(id).version
	at := 1
	st, err := s.eng.Status(id)
	switch {
	case errors.Is(err, curriculum.ErrUnknownTask):
	case err != nil:
		return err
	case st.Version > latest:
		return fmt.Errorf("the curriculum follows reference version %d, the state database holds %d", st.Version, latest)
	default:
		at = st.Version
	}
	if err := s.eng.Register(curriculum.FromTrajectory(id, s.refs.at(id, at).Ref)); err != nil {
		return err
	}
	vs := s.refs.list(id)
	for v := at + 1; v <= latest; v++ {
		if err := s.eng.Rebase(rebase(s.refs.at(id, v), vs[v-1])); err != nil {
			return err
		}
	}
	return nil
}
