package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/rbx-sandbox/rbx/curriculum"
)

// Reload is what AddTasks did with a reloaded task directory.
type Reload struct {
	// Added are the new tasks, now served (sorted).
	Added []string
	// Unchanged counts the tasks served already, as they were.
	Unchanged int
	// Refused says, per task, why an entry was not taken: a served task
	// whose task or reference changed, an id that cannot be served.
	Refused []error
}

// AddTasks serves the entries of a reloaded task directory (SIGHUP, or
// the directory changed): a task the server does not serve yet is
// registered with the curriculum and served from now on; a served task
// whose task file and reference are as they were at start is left alone;
// one that changed is refused, named in Reload.Refused: the curriculum's
// outcomes and open episodes are about the states of the reference it
// was started with (a new reference comes in as a reference refresh, or
// under a new task id, or with a restart on a new --state).
func (s *Server) AddTasks(ctx context.Context, entries []Entry) (Reload, error) {
	var (
		out   Reload
		fresh []*Entry
		infos []curriculum.TaskInfo
	)
	for i := range entries {
		e := &entries[i]
		if e.Task == nil || e.Ref == nil {
			out.Refused = append(out.Refused, fmt.Errorf("entry %d: task and reference trajectory are required", i))
			continue
		}
		id := e.Task.ID
		if !idPattern.MatchString(id) {
			out.Refused = append(out.Refused, fmt.Errorf("task %q: ids must match %s to be served", id, idPattern))
			continue
		}
		if first := s.refs.at(id, 1); first != nil {
			same, err := sameEntry(first, e)
			switch {
			case err != nil:
				out.Refused = append(out.Refused, fmt.Errorf("task %q: %w", id, err))
			case same:
				out.Unchanged++
			default:
				out.Refused = append(out.Refused, fmt.Errorf("task %q: its task file or reference trajectory changed since the server loaded it (reference %s): not reloaded, because the curriculum's outcomes and the open episodes are about the states of the reference it started with; serve the change under a new task id, or restart with another --state", id, first.Ref.ID))
			}
			continue
		}
		if slices.ContainsFunc(fresh, func(f *Entry) bool { return f.Task.ID == id }) {
			out.Refused = append(out.Refused, fmt.Errorf("task %q: two reference trajectories; serve one per task", id))
			continue
		}
		fresh = append(fresh, e)
		// A task the state database knows from an earlier run keeps its
		// curriculum (as at start).
		if _, err := s.eng.Status(id); errors.Is(err, curriculum.ErrUnknownTask) {
			infos = append(infos, curriculum.FromTrajectory(id, e.Ref))
		}
	}
	if len(fresh) == 0 {
		return out, nil
	}
	if err := ctx.Err(); err != nil {
		return out, err
	}
	// The curriculum first: a task the refs serve must have its state.
	if err := s.eng.RegisterAll(infos); err != nil {
		return out, fmt.Errorf("register reloaded tasks with the curriculum: %w", err)
	}
	s.refs.addTasks(fresh)
	for _, e := range fresh {
		out.Added = append(out.Added, e.Task.ID)
	}
	slices.Sort(out.Added)
	return out, nil
}

// sameEntry reports whether b is the task and reference a was loaded as
// (their JSON: every field a reset, a step or the verifier reads).
func sameEntry(a, b *Entry) (bool, error) {
	for _, pair := range [][2]any{{a.Task, b.Task}, {a.Ref, b.Ref}} {
		x, err := json.Marshal(pair[0])
		if err != nil {
			return false, fmt.Errorf("compare: %w", err)
		}
		y, err := json.Marshal(pair[1])
		if err != nil {
			return false, fmt.Errorf("compare: %w", err)
		}
		if !bytes.Equal(x, y) {
			return false, nil
		}
	}
	return true, nil
}
