package curriculum

import "math/bits"

// kstats are the outcome counters of one checkpoint.
type kstats struct {
	window   uint64 // the last min(n, W) outcomes, newest in bit 0
	n        int    // episodes observed
	succ     int    // successes observed
	failRun  int    // consecutive failures since the last success
	run      int    // consecutive successes since the last failure
	flagged  bool   // failRun reached stuckAfter
	inWindow int    // min(n, W)
	// The SPRT rule's running test: the log-likelihood ratio since the
	// last completed test, and that test's result.
	llr  float64
	test testResult
}

// track is one task's checkpoints with their statistics; policies read it.
type track struct {
	cfg   *config
	valid []bool // len T
	stats []kstats
	// learnt is the evidence on the policy's learning speed: one record
	// per checkpoint left as mastered (posterior rule, learntSMin).
	learnt []leftRecord
	// onMastered, when set, hears every checkpoint a strategy leaves as
	// mastered (the engine's WithOnMastered hook; unset while restoring).
	onMastered func(k int)
}

func newTrack(cfg *config, ti TaskInfo) *track {
	return &track{cfg: cfg, valid: ti.normalized().Valid, stats: make([]kstats, ti.T)}
}

func (t *track) T() int { return len(t.valid) }

func (t *track) record(k int, success bool) {
	s := &t.stats[k]
	mask := uint64(1)<<t.cfg.window - 1
	if t.cfg.window == 64 {
		mask = ^uint64(0)
	}
	s.window = (s.window << 1) & mask
	s.n++
	if s.inWindow < t.cfg.window {
		s.inWindow++
	}
	t.sprtRecord(s, success)
	if success {
		s.window |= 1
		s.succ++
		s.failRun = 0
		s.run++
		s.flagged = false
		return
	}
	s.run = 0
	s.failRun++
	if s.failRun >= t.cfg.stuckAfter {
		s.flagged = true
	}
}

// rate returns p̂(k) over the episodes in the window and whether it is full.
func (t *track) rate(k int) (float64, bool) {
	s := &t.stats[k]
	if s.inWindow == 0 {
		return 0, false
	}
	return float64(bits.OnesCount64(s.window)) / float64(s.inWindow), s.inWindow == t.cfg.window
}

// mastered tells the hook that a strategy left k as mastered.
func (t *track) mastered(k int) {
	t.learn(k)
	if t.onMastered != nil {
		t.onMastered(k)
	}
}

// validIn lists the valid checkpoints in [lo, hi], ascending.
func (t *track) validIn(lo, hi int) []int {
	var ks []int
	for k := max(lo, 0); k <= hi && k < t.T(); k++ {
		if t.valid[k] {
			ks = append(ks, k)
		}
	}
	return ks
}

// back returns the checkpoint delta valid checkpoints before k, not below lo.
func (t *track) back(k, delta, lo int) int {
	to := k
	for j := k - 1; j >= lo && delta > 0; j-- {
		if t.valid[j] {
			to, delta = j, delta-1
		}
	}
	return to
}
