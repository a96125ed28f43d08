package server

import (
	"sync"
	"time"
)

// keyedGroups remembers the checkpoint of each open keyed group (resets
// with a group key, ResetRequest.GroupKey), so that members that reset
// one by one start from the same k. A group is open from its first reset
// until one of its episodes ends or its window passes; at most max are
// remembered (the oldest dropped first), so what it holds is bounded
// whatever the clients send.
type keyedGroups struct {
	mu     sync.Mutex
	window time.Duration
	max    int
	m      map[groupID]*keyedGroup
	order  []groupID // by first reset, oldest first
}

type groupID struct{ task, key string }

// keyedGroup is one open group: where it starts, since when, and
// whether it still takes members.
type keyedGroup struct {
	k       int
	purpose string
	opened  time.Time
	ended   bool
}

func newKeyedGroups(window time.Duration, max int) *keyedGroups {
	return &keyedGroups{window: window, max: max, m: map[groupID]*keyedGroup{}}
}

// checkpoint returns the k of the open group of (task, key), the reset's
// members counted by join (the curriculum), or opens a new group at the k
// pick chooses. Under the lock, so that the first members of a group that
// reset at once do not each pick a k.
func (g *keyedGroups) checkpoint(task, key string, pick func() (int, string, error), join func(k int) error) (int, string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	id := groupID{task, key}
	if kg := g.m[id]; kg != nil && !kg.ended && now().Sub(kg.opened) <= g.window {
		if err := join(kg.k); err != nil {
			return 0, "", err
		}
		return kg.k, kg.purpose, nil
	}
	k, purpose, err := pick()
	if err != nil {
		return 0, "", err
	}
	if _, ok := g.m[id]; ok {
		g.drop(id)
	}
	for len(g.order) >= g.max {
		g.drop(g.order[0])
	}
	g.m[id] = &keyedGroup{k: k, purpose: purpose, opened: now()}
	g.order = append(g.order, id)
	return k, purpose, nil
}

// ended closes the group of (task, key) to new members: one of its
// episodes has an outcome or was closed, so a later reset with the key
// belongs to a new group (the next batch).
func (g *keyedGroups) ended(task, key string) {
	if key == "" {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if kg := g.m[groupID{task, key}]; kg != nil {
		kg.ended = true
	}
}

// drop forgets id. Callers hold mu.
func (g *keyedGroups) drop(id groupID) {
	delete(g.m, id)
	for i, o := range g.order {
		if o == id {
			g.order = append(g.order[:i], g.order[i+1:]...)
			return
		}
	}
}
