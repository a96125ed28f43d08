package curriculum

// probeAt picks the anchor of Search-Learn's next probe: the first, from
// the start, with fewer than N_probe episodes handed out. Once all are
// handed out a probe may have been lost (its episode closed without an
// outcome), so the probe goes again to the anchor still short of N_probe
// outcomes with the fewest outstanding (handed out, no outcome yet), never
// to one whose outcomes are all in: counting episodes handed out instead
// would probe again the anchors that already answered.
func (s *searchLearn) probeAt() int {
	want := s.tr.cfg.probes
	for i, c := range s.issued {
		if c < want {
			return i
		}
	}
	best := 0
	for i := range s.anchors {
		if s.probed[i] >= want {
			continue
		}
		if s.probed[best] >= want || s.issued[i]-s.probed[i] < s.issued[best]-s.probed[best] {
			best = i
		}
	}
	// SELECT ends the SEARCH once every anchor has its outcomes, so one
	// still short of them exists here.
	return best
}

// observeProbe counts a probe's outcome and, once every anchor has
// N_probe of them, SELECTs s_c: the first anchor from the start with
// p̂ > 0, else the domain's end.
func (s *searchLearn) observeProbe(k int, success bool) {
	for i, a := range s.anchors {
		if a != k {
			continue
		}
		s.probed[i]++
		if success {
			s.hits[i]++
		}
	}
	for _, c := range s.probed {
		if c < s.tr.cfg.probes {
			return
		}
	}
	s.sc = s.anchors[len(s.anchors)-1]
	for i, h := range s.hits {
		if h > 0 {
			s.sc = s.anchors[i]
			break
		}
	}
	s.phase = phaseLearn
}
