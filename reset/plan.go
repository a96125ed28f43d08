package reset

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/rbx-sandbox/rbx/pool"
)

// planInterval is how often warm targets follow the decaying demand.
const planInterval = time.Second

// WithClassMax bounds the idle sandboxes one class keeps under WithWarm
// (default: no bound but the warm total).
func WithClassMax(n int) Option {
	return func(c *config) error { c.classMax = n; return nil }
}

// WithCapacityWait bounds how long a reset waits in the budget's line for
// room (default: until its ctx ends); the error then wraps
// capacity.ErrFull (rbx serve answers 429 capacity).
func WithCapacityWait(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return fmt.Errorf("capacity wait %v: expected ≥ 0", d)
		}
		c.wait = d
		return nil
	}
}

// planLoop re-plans the warm targets until Close.
func (r *Resetter) planLoop() {
	defer close(r.planned)
	t := time.NewTicker(planInterval)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
			r.plan()
		}
	}
}

// classLimit is the most idle sandboxes one class keeps.
func (r *Resetter) classLimit() int {
	if r.cfg.classMax > 0 {
		return r.cfg.classMax
	}
	return r.budget.Max()
}

// plan sets every class's warm target from its demand (with WithWarm) and
// stops the stages of checkpoints nobody asks for any more.
func (r *Resetter) plan() {
	r.mu.Lock()
	pools := make(map[string]*pool.Pool, len(r.pools))
	for k, p := range r.pools {
		pools[k] = p
	}
	var faded []*stage
	for key, st := range r.stages {
		if r.demand.point(st.task.ID, st.k) < demandFloor {
			faded = append(faded, st)
			delete(r.stages, key)
		}
	}
	r.mu.Unlock()
	for _, st := range faded {
		go st.stop()
	}
	if r.cfg.warm < 0 {
		return
	}
	targets := r.demand.targets(max(0, r.cfg.warm-r.Staged()), r.classLimit())
	for key, p := range pools {
		p.SetSize(targets[key])
	}
}

// evict starts removing up to n idle sandboxes for a waiter of the
// budget: staged ones of the least asked-for checkpoints first, then warm
// ones of the least asked-for classes. It returns how many.
func (r *Resetter) evict(n int) int {
	r.mu.Lock()
	stages := make([]*stage, 0, len(r.stages))
	for _, st := range r.stages {
		stages = append(stages, st)
	}
	pools := make([]*pool.Pool, 0, len(r.pools))
	for _, p := range r.pools {
		pools = append(pools, p)
	}
	r.mu.Unlock()
	sort.Slice(stages, func(i, j int) bool {
		return r.demand.point(stages[i].task.ID, stages[i].k) < r.demand.point(stages[j].task.ID, stages[j].k)
	})
	// The class at the front of the line is never evicted: its idle
	// sandboxes are about to be handed out to it, evicting them would only
	// make it create again. Classes with resets waiting further back are
	// spared next.
	if head, waiting := r.budget.Head(); waiting {
		pools = slices.DeleteFunc(pools, func(p *pool.Pool) bool { return p.Key() == head })
	}
	sort.Slice(pools, func(i, j int) bool {
		wi, wj := pools[i].Waiting() > 0, pools[j].Waiting() > 0
		if wi != wj {
			return !wi
		}
		return r.demand.class(pools[i].Key()) < r.demand.class(pools[j].Key())
	})
	done := 0
	for _, st := range stages {
		done += st.evict(n - done)
	}
	for _, p := range pools {
		if done >= n {
			break
		}
		// A class asked for lately keeps its share of the budget: evicting
		// its idle sandboxes for another class's waiter would only make it
		// create them again at its next group (creation and removal cost
		// the engine many recycles' time). Classes over their share give
		// way; so does every class when nobody waits.
		over := n - done
		if _, waiting := r.budget.Head(); waiting && r.demand.class(p.Key()) >= demandFloor {
			over = min(over, p.Held()-r.demand.share(p.Key(), r.budget.Max()))
		}
		if over > 0 {
			done += p.Evict(over)
		}
	}
	return done
}
