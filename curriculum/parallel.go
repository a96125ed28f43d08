package curriculum

// parallel is Parallel Rollback: M segments spread uniformly over [0, T],
// each running Sequential Rollback on its own; the episode budget is split
// round-robin between the unfinished segments. The task is solved when the
// first segment masters k = 0, whatever the later segments still train:
// their checkpoints are suffixes of an episode from k = 0, so they no longer
// need episodes of their own (docs/curriculum.md: finished when k = 0 is mastered).
type parallel struct {
	segs []*sequential
	his  []int // each segment's upper bound, to route outcomes
	rr   int
}

func newParallel(tr *track) *parallel {
	T, m := tr.T(), min(tr.cfg.segments, tr.T())
	p := &parallel{}
	for j := range m {
		lo, hi := j*T/m, (j+1)*T/m-1
		if seg := newSequential(tr, lo, hi, 1); !seg.finished {
			p.segs, p.his = append(p.segs, seg), append(p.his, hi)
		}
	}
	return p
}

func (p *parallel) next(n int) (int, Purpose) {
	if p.done() {
		return 0, PurposeSolved
	}
	for range p.segs {
		seg := p.segs[p.rr%len(p.segs)]
		p.rr++
		if !seg.finished {
			return seg.next(n)
		}
	}
	return 0, PurposeSolved
}

// join: segments place groups round-robin, not by count.
func (p *parallel) join(int, int) {}

func (p *parallel) observe(k int, success bool) {
	for i, hi := range p.his {
		if k <= hi {
			p.segs[i].observe(k, success)
			return
		}
	}
}

// done reports that the first segment, the one holding k = 0, is finished.
func (p *parallel) done() bool { return len(p.segs) == 0 || p.segs[0].finished }

func (p *parallel) describe(st *Status) {
	st.Phase = "rollback"
	if p.done() {
		return
	}
	for _, s := range p.segs {
		k := -1
		if !s.finished {
			k = s.k
		}
		st.Segments = append(st.Segments, k)
	}
	for _, s := range p.segs {
		if !s.finished {
			st.K = s.k
			return
		}
	}
}

// rebase keeps the segments that end at or before k as they are; the
// first segment that ends after k is stretched to end at T'−1 and follows
// Sequential's rule; the segments after it are dropped, their checkpoints
// are gone (the new states after k belong to the stretched segment).
func (p *parallel) rebase(k int) {
	last := -1
	for i, hi := range p.his {
		if hi <= k {
			last = hi
			continue
		}
		p.his[i] = p.segs[i].tr.T() - 1
		p.segs[i].rebase(k)
		p.segs, p.his = p.segs[:i+1], p.his[:i+1]
		return
	}
	// Every segment ends at or before k: the new states need one of their own.
	if len(p.segs) == 0 {
		return
	}
	tr := p.segs[0].tr
	if seg := newSequential(tr, last+1, tr.T()-1, 1); !seg.finished {
		p.segs, p.his = append(p.segs, seg), append(p.his, tr.T()-1)
	}
}
