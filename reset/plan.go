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
		// A class keeps what it holds as long as it holds no more of the
		// budget for its demand than the waiting class (see yields):
		// evicting its idle sandboxes would only make it create them again
		// at its next group (a creation and a removal cost the engine many
		// recycles' time).
		over := n - done
		if head, waiting := r.budget.Head(); waiting {
			over = min(over, r.excess(p.Key(), p.Held(), head))
		}
		if over > 0 {
			done += p.Evict(over)
		}
	}
	return done
}

// yields reports whether class, holding held sandboxes, should give its
// room to front, the class waiting at the front of the budget's line:
// when it holds more of the budget for its demand than front does
// (held/share(class) > held(front)/share(front), max-min fairness over
// demand shares, with a margin). A class nobody asked for lately always
// yields; a waiting class holding nothing is owed room by every class
// holding some. So a
// waiter is always served, by another class's room or by its own class's
// sandboxes coming back, and classes of steady demand stop trading slots
// (a removal and a creation each) between their groups.
func (r *Resetter) yields(class string, held int, front string) bool {
	return r.excess(class, held, front) > 0
}

// excess is how many of the held sandboxes of class are more than its
// fair part next to front's (see yields); all of them for a class nobody
// asked for lately.
func (r *Resetter) excess(class string, held int, front string) int {
	budget := r.budget.Max()
	sc := r.demand.share(class, budget)
	if sc == 0 {
		return held
	}
	r.mu.Lock()
	fp := r.pools[front]
	r.mu.Unlock()
	sf := r.demand.share(front, budget)
	if fp == nil || sf == 0 {
		return held
	}
	return fairExcess(held, sc, fp.Held(), sf)
}

// fairExcess is how many of held sandboxes (of a class whose share is sc)
// are beyond what front, holding hf for a share of sf, would hold at the
// same ratio — with a margin (an eighth of that part, at least one) so
// that two classes near their fair parts do not trade a slot back and
// forth; front's own sandboxes coming back serve it meanwhile. A front
// holding nothing has nothing coming back: it is owed room now.
func fairExcess(held, sc, hf, sf int) int {
	if hf == 0 {
		return held
	}
	keep := (hf*sc + sf - 1) / sf // ceil(hf/sf × sc)
	return held - keep - max(1, keep/8)
}
