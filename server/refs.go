package server

import (
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/rbx-sandbox/rbx/curriculum"
)

// references holds every version of every task's reference; the newest
// is the one resets use, older ones serve the episodes reset on them.
type references struct {
	mu   sync.RWMutex
	vers map[string][]*Entry // by task, index version-1
	meta map[string][]RefVersion
	ids  []string // every task id, sorted; replaced (never changed in place) by addTasks
}

func newReferences(cat catalog) *references {
	r := &references{vers: map[string][]*Entry{}, meta: map[string][]RefVersion{}}
	for id, e := range cat {
		e.version = 1
		r.vers[id] = []*Entry{e}
		r.meta[id] = []RefVersion{{Task: id, Version: 1, ID: e.Ref.ID, T: e.Ref.Len(), Adopted: time.Now().UTC()}}
	}
	r.ids = cat.ids()
	return r
}

// taskIDs lists every served task id, sorted (the caller must not modify it).
func (r *references) taskIDs() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.ids
}

// addTasks adds tasks the server did not serve, each at version 1.
func (r *references) addTasks(entries []*Entry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := append([]string(nil), r.ids...)
	for _, e := range entries {
		id := e.Task.ID
		e.version = 1
		r.vers[id] = []*Entry{e}
		r.meta[id] = []RefVersion{{Task: id, Version: 1, ID: e.Ref.ID, T: e.Ref.Len(), Adopted: time.Now().UTC()}}
		ids = append(ids, id)
	}
	sort.Strings(ids)
	r.ids = ids
}

// current is the task's newest version (nil for an unknown task).
func (r *references) current(task string) *Entry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	vs := r.vers[task]
	if len(vs) == 0 {
		return nil
	}
	return vs[len(vs)-1]
}

// at is version v of the task's reference (nil when there is none).
func (r *references) at(task string, v int) *Entry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	vs := r.vers[task]
	if v < 1 || v > len(vs) {
		return nil
	}
	return vs[v-1]
}

// list describes the task's versions, oldest first.
func (r *references) list(task string) []RefVersion {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := append([]RefVersion(nil), r.meta[task]...)
	if n := len(out); n > 0 {
		out[n-1].Current = true
	}
	return out
}

// add makes e (whose version must be the next one) the task's current reference.
func (r *references) add(e *Entry, m RefVersion) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	vs := r.vers[m.Task]
	if e.version != len(vs)+1 || m.Version != e.version {
		return fmt.Errorf("task %s: reference version %d after %d", m.Task, e.version, len(vs))
	}
	r.vers[m.Task], r.meta[m.Task] = append(vs, e), append(r.meta[m.Task], m)
	return nil
}

// sameState reports whether checkpoint k of version v is the same state
// in the current version: every version adopted since v kept the first k
// steps. An outcome at k on version v feeds the curriculum only then.
func (r *references) sameState(task string, v, k int) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	ms := r.meta[task]
	for i := v; i < len(ms); i++ { // ms[i] is version i+1, adopted after v
		if k > ms[i].K {
			return false
		}
	}
	return true
}

// rebase is the curriculum's view of version m.
func rebase(e *Entry, m RefVersion) curriculum.Rebase {
	return curriculum.Rebase{Task: m.Task, K: m.K, Version: m.Version, To: curriculum.FromTrajectory(m.Task, e.Ref)}
}

// stored is every version of the task as rows to store.
func (r *references) stored(task string) []storedRef {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]storedRef, len(r.vers[task]))
	for i, e := range r.vers[task] {
		out[i] = storedRef{meta: r.meta[task][i], ref: e.Ref}
	}
	return out
}
