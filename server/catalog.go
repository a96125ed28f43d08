package server

import (
	"fmt"
	"regexp"
	"sort"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Entry is one servable task with its reference trajectory.
type Entry struct {
	Task *task.Task
	Ref  *trajectory.Trajectory
	// version is Ref's reference version (1: the one loaded at start).
	version int
}

// idPattern bounds every id a client sends (task and episode ids): no
// path separators, no control characters, no unbounded lengths.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// episodeIDPattern is the shape of ids this server hands out.
var episodeIDPattern = regexp.MustCompile(`^ep_[0-9a-f]{20}$`)

// catalog indexes entries by task id.
type catalog map[string]*Entry

func newCatalog(entries []Entry) (catalog, error) {
	c := catalog{}
	for i := range entries {
		e := &entries[i]
		if e.Task == nil || e.Ref == nil {
			return nil, fmt.Errorf("entry %d: task and reference trajectory are required", i)
		}
		if !idPattern.MatchString(e.Task.ID) {
			return nil, fmt.Errorf("task %q: ids must match %s to be served", e.Task.ID, idPattern)
		}
		if _, dup := c[e.Task.ID]; dup {
			return nil, fmt.Errorf("task %q: two reference trajectories; serve one per task", e.Task.ID)
		}
		c[e.Task.ID] = e
	}
	return c, nil
}

func (c catalog) ids() []string {
	ids := make([]string, 0, len(c))
	for id := range c {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

func (c catalog) info(id string) curriculum.TaskInfo { return curriculum.FromTrajectory(id, c[id].Ref) }
