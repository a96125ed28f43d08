package server

import (
	"errors"
	"fmt"

	"github.com/rbx-sandbox/rbx/prefilter"
	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/task"
)

// ErrNoEntries is returned by References when no task has a valid
// reference trajectory.
var ErrNoEntries = errors.New("no task with a valid reference trajectory")

// References picks the entries to serve among the documents
// prefilter.Discover found: the first valid trajectory (in Discover's
// order, by path) of each task is its reference. Broken documents and
// further trajectories of a task come back as skipped, one error each, for
// the caller to report.
func References(items []*prefilter.Item) (entries []Entry, skipped []error, err error) {
	seen := map[string]string{}
	for _, it := range items {
		switch {
		case it.Err != nil:
			skipped = append(skipped, fmt.Errorf("skipping %s: %w", it.Key.File, it.Err))
		case seen[it.Task.ID] != "":
			skipped = append(skipped, fmt.Errorf("task %s already has reference %s; ignoring %s", it.Task.ID, seen[it.Task.ID], it.Traj.ID))
		default:
			seen[it.Task.ID] = it.Traj.ID
			entries = append(entries, Entry{Task: it.Task, Ref: it.Traj})
		}
	}
	if len(entries) == 0 {
		return nil, skipped, ErrNoEntries
	}
	return entries, skipped, nil
}

// Images lists the distinct sandbox images of entries, in order: what a
// server needs present before it starts.
func Images(entries []Entry) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range entries {
		if img := provision.Spec(e.Task).Image; !seen[img] {
			seen[img] = true
			out = append(out, img)
		}
	}
	return out
}

// Tasks lists the tasks of entries, in order.
func Tasks(entries []Entry) []*task.Task {
	out := make([]*task.Task, len(entries))
	for i, e := range entries {
		out[i] = e.Task
	}
	return out
}
