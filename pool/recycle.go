package pool

import (
	"context"
	"time"

	"github.com/rbx-sandbox/rbx/capacity"
	"github.com/rbx-sandbox/rbx/sandbox"
)

// RecycleFunc returns a sandbox whose episode ended to the state it had
// fresh from the pool, in place; an error (any doubt) means it must be
// removed instead.
type RecycleFunc func(ctx context.Context, sb sandbox.Sandbox) error

// WithRecycle recycles sandboxes given back with Return through f instead
// of removing them, for as long as a recycle is measured to cost less than
// a fresh sandbox (a creation plus a removal): after the first
// recycleSamples recycles it keeps whichever is cheaper, and says so in
// the log (default: no recycling, Return removes).
func WithRecycle(f RecycleFunc) Option {
	return func(c *config) error { c.recycle = f; return nil }
}

// recycleSamples is how many recycles and creations are timed before the
// pool compares them.
const recycleSamples = 5

// recycleTimeout bounds one recycle.
const recycleTimeout = time.Minute

// recycleState is the pool's choice between recycling and removing.
type recycleState struct {
	on      bool // recycling configured and not (yet) found dearer
	decided bool // the comparison was made and logged
	active  int  // recycles under way
}

// Return gives back a sandbox handed out: recycled in place and kept idle
// when the pool recycles and wants another idle sandbox, removed
// otherwise. Recycling runs in the background, holding the sandbox's slot.
func (p *Pool) Return(sb sandbox.Sandbox) {
	if sb == nil {
		return
	}
	// Asked before mu (it asks the other class's pool), while sb is still
	// counted as held.
	yield := p.yieldsToFront()
	// Taken back and counted as recycling under one lock: in between, the
	// filler would see the sandbox neither out nor coming back and create
	// its replacement, which would then have it removed instead of recycled.
	p.mu.Lock()
	m := p.takeBackLocked(sb)
	if m == nil {
		p.mu.Unlock()
		return
	}
	want := p.rc.on && !p.closed.Load() && p.wantBack(yield)
	if want {
		p.rc.active++
	}
	p.mu.Unlock()
	p.stats.returned.Add(1)
	if !want {
		p.remove(m)
		return
	}
	m.slot.Mark(capacity.Recycling)
	p.bgWG.Add(1)
	go func() {
		defer p.bgWG.Done()
		ok := p.recycle(m)
		p.mu.Lock()
		p.rc.active--
		p.mu.Unlock()
		if ok {
			p.park(m)
		} else {
			p.remove(m)
		}
	}()
}

// wantBack reports whether a sandbox given back should be recycled and
// kept rather than removed (callers hold mu): when resets of this class
// wait for room (they take it), or when nobody waits and the class is
// short of its warm target; a creation for this class waiting for a
// permit counts as a reset waiting. When another class waits at the front
// of the line and is owed the room (yield, see WithYield), removing it is
// what frees a slot for that class. A class whose resets keep coming gets its
// own sandboxes back before a class at the front of the line gets a slot:
// a creation costs far more than a recycle, and a starved class's resets
// end with 429 at their deadline rather than wait without bound.
//
// A first in line that is patient (capacity.Patient: its own class's
// sandboxes in flight will serve it) does not count as waiting here: this
// class keeps its sandbox as when nobody waits, instead of removing it
// for a creation the other class does not need and then creating it again
// at its own next demand.
func (p *Pool) wantBack(yield bool) bool {
	if p.wantingLocked()+p.Waiting()+int(p.pending.Load()) > 0 {
		return true
	}
	if yield {
		return false
	}
	return len(p.idle)+int(p.stats.creating.Load())+p.rc.active < int(p.size.Load())
}

// YieldFunc reports whether a class holding held sandboxes (the one given
// back included) should give its room to front, the class waiting at the
// front of the budget's line.
type YieldFunc func(front string, held int) bool

// WithYield decides whether a sandbox given back while another class waits
// at the front of the line (impatiently: see capacity.Patient) is removed
// for it, or kept for this class's next resets (default: removed). reset
// keeps it while this class holds no more of the budget, for its demand,
// than the waiting class does (max-min fair shares).
func WithYield(f YieldFunc) Option {
	return func(c *config) error { c.yield = f; return nil }
}

// yieldsToFront reports whether a sandbox given back now goes to the class
// at the front of the line (asked while it is still held).
func (p *Pool) yieldsToFront() bool {
	front, patient, waiting := p.budget.Front()
	if !waiting || patient || front == p.tmpl.Key {
		return false
	}
	return p.cfg.yield == nil || p.cfg.yield(front, p.Held())
}

// Held is how many sandboxes the pool holds: idle, in use, being created
// or recycled.
func (p *Pool) Held() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.heldLocked()
}

func (p *Pool) heldLocked() int {
	return len(p.idle) + int(p.stats.inUse.Load()+p.stats.creating.Load()) + p.rc.active
}

// recycle runs the recycle function on m, timing it; false when m must go.
func (p *Pool) recycle(m *member) bool {
	p.rcSem <- struct{}{}
	defer func() { <-p.rcSem }()
	ctx, cancel := context.WithTimeout(context.Background(), recycleTimeout)
	defer cancel()
	// Not under Budget.Engine: a recycle is execs in a running container,
	// like an episode's steps, not the engine's create or remove.
	start := time.Now()
	err := p.cfg.recycle(ctx, m.sb)
	if err != nil {
		p.stats.recycleFailed.Add(1)
		p.cfg.log.Warn("pool: a sandbox could not be proved fresh; removing it", "pool", p.tmpl.Key, "sandbox", m.sb.ID(), "err", err)
		return false
	}
	m.recycled++
	p.stats.recycled.Add(1)
	p.stats.recycleNanos.Add(int64(time.Since(start)))
	p.decide()
	return true
}

// decide compares, once enough of both were timed and again every
// recycleSamples recycles after, what a sandbox given back costs with
// recycling and without, and keeps the cheaper. Without: a plain creation
// (CreateMean less the recycling preparation a plain one does not pay)
// and a removal. With: a recycle, plus the preparation of the creations
// recycling did not avoid (those made after the first return, per
// recycle, at the recent preparation's cost: PrepareRecent) — where every
// recyclable creation pays a listing of tens of thousands of files, many
// times a recycle's cost, a class whose sandboxes are mostly created anew
// (classes competing for the budget) is better off without. Once off it stays off: a pool that no longer
// recycles cannot measure a recycle.
func (p *Pool) decide() {
	st := p.Stats()
	if st.Recycled < recycleSamples || st.Created < 1 || st.Recycled%recycleSamples != 0 {
		return
	}
	plain := max(st.CreateMean-st.PrepareMean, 0) + st.RemoveMean // no removal timed yet: counted free, in the fresh sandbox's favour
	with := st.RecycleMean + time.Duration(float64(st.PrepareRecent)*float64(st.CreatedReturning)/float64(st.Recycled))
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.rc.on {
		return
	}
	first := !p.rc.decided
	p.rc.decided = true
	args := []any{"pool", p.tmpl.Key, "recycle", st.RecycleMean.Round(time.Millisecond),
		"prepare", st.PrepareRecent.Round(time.Millisecond), "created_per_recycle", float64(st.CreatedReturning) / float64(st.Recycled),
		"with_recycling", with.Round(time.Millisecond), "create+remove", plain.Round(time.Millisecond)}
	if with < plain {
		if first {
			p.cfg.log.Info("pool: recycling sandboxes in place: cheaper than fresh ones", args...)
		}
		return
	}
	p.rc.on = false
	p.cfg.log.Warn("pool: recycling off: a fresh sandbox is cheaper here", args...)
}

// Recycling reports whether the pool recycles the sandboxes given back.
func (p *Pool) Recycling() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rc.on
}
