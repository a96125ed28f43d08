package curriculum

// parallel is Parallel Rollback: M segments spread uniformly over [0, T],
// each running Sequential Rollback on its own; the episode budget is split
// round-robin between the unfinished segments.
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
	for range p.segs {
		seg := p.segs[p.rr%len(p.segs)]
		p.rr++
		if !seg.finished {
			return seg.next(n)
		}
	}
	return 0, PurposeSolved
}

func (p *parallel) observe(k int, success bool) {
	for i, hi := range p.his {
		if k <= hi {
			p.segs[i].observe(k, success)
			return
		}
	}
}

func (p *parallel) done() bool {
	for _, s := range p.segs {
		if !s.finished {
			return false
		}
	}
	return true
}

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
