package curriculum

// sequential is Sequential Rollback on the segment [lo, hi] (Heuristic
// Sequential when deltaMax > 1): start at the last valid checkpoint of the
// segment, serve it until the decision rule judges it mastered, then step
// back — δ_max valid checkpoints when no episode in the evidence failed
// (p̂ ≫ θ), else one (p̂ ≈ θ). Mastering lo finishes the segment.
type sequential struct {
	tr         *track
	from       int // the segment's lower bound
	lo         int // its first valid checkpoint
	k          int
	deltaMax   int
	bottleneck bool // p̂(k) fell below θ since arriving at k
	finished   bool
}

func newSequential(tr *track, lo, hi, deltaMax int) *sequential {
	ks := tr.validIn(lo, hi)
	s := &sequential{tr: tr, from: lo, lo: lo, deltaMax: deltaMax}
	if len(ks) == 0 {
		s.finished = true
		return s
	}
	s.lo, s.k = ks[0], ks[len(ks)-1]
	return s
}

func (s *sequential) next(int) (int, Purpose) {
	switch {
	case s.finished:
		return 0, PurposeSolved
	case s.bottleneck:
		return s.k, PurposeBottleneck
	}
	return s.k, PurposeRollback
}

// join: the sequential strategy does not count the episodes it places.
func (s *sequential) join(int, int) {}

func (s *sequential) observe(k int, _ bool) {
	if s.finished || k != s.k {
		return // a late outcome from an earlier checkpoint: statistics only
	}
	v := s.tr.verdict(k)
	if v.low {
		s.bottleneck = true
	}
	if !v.mastered {
		return
	}
	s.tr.mastered(k)
	if k == s.lo {
		s.finished = true
		return
	}
	delta := 1
	if v.clear {
		delta = s.deltaMax
	}
	s.k, s.bottleneck = s.tr.back(k, delta, s.lo), false
}

func (s *sequential) done() bool { return s.finished }

func (s *sequential) describe(st *Status) {
	st.K = s.k
	if s.finished {
		st.K = 0
	}
	st.Phase = "rollback"
	if s.bottleneck {
		st.Phase = "bottleneck"
	}
}

// rebase keeps a position at or before k (the same state in the new
// reference) and moves a later one to the last valid checkpoint at or
// before min(position, T'−1): the old suffix from the position on was
// mastered, the new one is the policy's own shorter path. A finished
// segment stays finished: its first checkpoint is at or before k.
func (s *sequential) rebase(k int) {
	if s.finished || s.k <= k {
		return
	}
	last := s.tr.T() - 1
	ks := s.tr.validIn(s.from, min(s.k, last))
	if len(ks) == 0 {
		ks = s.tr.validIn(s.from, last)
	}
	if len(ks) == 0 {
		s.finished = true
		return
	}
	s.lo = s.tr.validIn(s.from, last)[0]
	s.k, s.bottleneck = ks[len(ks)-1], false
}
