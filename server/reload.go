package server

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

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
	s.reload.mu.Lock()
	defer s.reload.mu.Unlock()
	var (
		out   Reload
		fresh []*Entry
		seen  = map[string]bool{}
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
			same, err := s.reload.same(first, e)
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
		if seen[id] {
			out.Refused = append(out.Refused, fmt.Errorf("task %q: two reference trajectories; serve one per task", id))
			continue
		}
		seen[id] = true
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

// reloads is AddTasks' state: one reload at a time, and the digest of
// each served task as it was loaded at start, made at its first reload
// only (a dataset's thousands of references are not serialized again at
// every change of the directory).
type reloads struct {
	mu     sync.Mutex
	loaded map[string][32]byte // by task id
}

// same reports whether b is the task and reference served was loaded
// as. Callers hold mu.
func (r *reloads) same(served, b *Entry) (bool, error) {
	id := served.Task.ID
	want, ok := r.loaded[id]
	if !ok {
		d, err := entryDigest(served)
		if err != nil {
			return false, err
		}
		if r.loaded == nil {
			r.loaded = map[string][32]byte{}
		}
		r.loaded[id], want = d, d
	}
	got, err := entryDigest(b)
	return got == want, err
}

// entryDigest digests e's task and reference as JSON: every field a reset,
// a step or the verifier reads.
func entryDigest(e *Entry) ([32]byte, error) {
	h := sha256.New()
	for _, v := range []any{e.Task, e.Ref} {
		b, err := json.Marshal(v)
		if err != nil {
			return [32]byte{}, fmt.Errorf("compare: %w", err)
		}
		h.Write(b)
		h.Write([]byte{0})
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum, nil
}
