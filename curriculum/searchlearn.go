package curriculum

// slPhase is Search-Learn's phase.
type slPhase int

const (
	phaseSearch slPhase = iota
	phaseLearn
	phaseDone
)

// searchLearn is Search-Learn Rollback (docs/curriculum.md):
//
//	domain ← [0, T]   (servable: its valid checkpoints below T)
//	SEARCH:   N_anchor anchors spread uniformly over the domain, N_probe episodes each
//	SELECT:   s_c ← first anchor from the start with p̂ > 0, else the domain's end
//	LEARN:    every episode at s_c until the decision rule judges it mastered
//	RESTRICT: domain ← [0, s_c − 1]; finished when the domain is empty
//
// The seed checks p̂(s_c) after each training round of N episodes. The
// engine does not see the trainer's rounds, so it judges s_c on every
// outcome, as Sequential does (docs/curriculum.md#search-learn-learn).
type searchLearn struct {
	tr      *track
	hi      int // the domain is [0, hi]
	phase   slPhase
	anchors []int
	issued  []int // episodes handed out per anchor in this SEARCH
	probed  []int // outcomes observed per anchor in this SEARCH
	hits    []int // successes per anchor in this SEARCH
	sc      int
}

func newSearchLearn(tr *track) *searchLearn {
	s := &searchLearn{tr: tr, hi: tr.T() - 1}
	s.search()
	return s
}

// search starts a SEARCH over [0, hi], or finishes when it holds no checkpoint.
func (s *searchLearn) search() {
	ks := s.tr.validIn(0, s.hi)
	if len(ks) == 0 {
		s.phase = phaseDone
		return
	}
	s.phase, s.anchors = phaseSearch, spread(ks, s.tr.cfg.anchors)
	s.issued = make([]int, len(s.anchors))
	s.probed = make([]int, len(s.anchors))
	s.hits = make([]int, len(s.anchors))
}

// spread picks n of ks uniformly by position, both ends included; all of
// them when there are no more than n.
func spread(ks []int, n int) []int {
	if len(ks) <= n {
		return append([]int(nil), ks...)
	}
	if n == 1 {
		return []int{ks[len(ks)-1]}
	}
	out := make([]int, n)
	for i := range n {
		out[i] = ks[(i*(len(ks)-1)+(n-1)/2)/(n-1)]
	}
	return out
}

func (s *searchLearn) next(n int) (int, Purpose) {
	switch s.phase {
	case phaseDone:
		return 0, PurposeSolved
	case phaseLearn:
		return s.sc, PurposeLearn
	}
	i := s.probeAt()
	s.issued[i] += n
	return s.anchors[i], PurposeProbe
}

// join counts n more probes at anchor k, as next counts a group's.
func (s *searchLearn) join(k, n int) {
	if s.phase != phaseSearch {
		return
	}
	for i, a := range s.anchors {
		if a == k {
			s.issued[i] += n
			return
		}
	}
}

func (s *searchLearn) observe(k int, success bool) {
	switch s.phase {
	case phaseSearch:
		s.observeProbe(k, success)
	case phaseLearn:
		if k == s.sc && s.tr.verdict(k).mastered { // RESTRICT
			s.tr.mastered(k)
			s.hi = k - 1
			s.search()
		}
	}
}

func (s *searchLearn) done() bool { return s.phase == phaseDone }

func (s *searchLearn) describe(st *Status) {
	st.Domain = &[2]int{0, s.hi}
	switch s.phase {
	case phaseSearch:
		st.Phase, st.Anchors = "search", append([]int(nil), s.anchors...)
		st.K = s.anchors[0]
	case phaseLearn:
		st.Phase, st.K = "learn", s.sc
	default:
		st.Phase, st.Domain = "solved", nil
	}
}

// rebase keeps the state when the domain ends at or before k (it holds
// only unchanged states). Otherwise the domain becomes [0, min(hi, T'−1)]:
// a LEARN at s_c ≤ k goes on; a SEARCH, or a LEARN after k, starts a new
// SEARCH over the mapped domain (its anchors after k are gone).
func (s *searchLearn) rebase(k int) {
	if s.phase == phaseDone || s.hi <= k {
		return
	}
	s.hi = min(s.hi, s.tr.T()-1)
	if s.phase == phaseLearn && s.sc <= k {
		return
	}
	s.search()
}
