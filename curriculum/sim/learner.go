// Package sim is the seed's thought-experiment learner
// (docs/curriculum.md): a task of n sequential subtasks, each succeeding
// independently with probability p, where a subtask is mastered (p → 1) after m rewarded
// episodes that exercised it, and nothing is learnt from failures. It drives
// the curriculum strategies and plain from-the-start sampling so their costs
// can be compared with the closed forms.
package sim

import "math/rand/v2"

// Learner is the simulated policy. An episode started at checkpoint k
// exercises subtasks k..n-1 and succeeds only if all of them succeed.
type Learner struct {
	p       []float64 // per-subtask success probability before mastery
	m       int
	gradual bool
	credits []int
	left    int // subtasks not yet mastered
}

// NewLearner returns a learner with the given per-subtask probabilities.
// With gradual, a subtask's success probability rises linearly from p to 1
// over its m rewarded episodes instead of jumping at the m-th.
func NewLearner(p []float64, m int, gradual bool) *Learner {
	return &Learner{p: append([]float64(nil), p...), m: m, gradual: gradual, credits: make([]int, len(p)), left: len(p)}
}

// N is the number of subtasks (the trajectory's T).
func (l *Learner) N() int { return len(l.p) }

// Prob is subtask i's current success probability.
func (l *Learner) Prob(i int) float64 {
	c := l.credits[i]
	switch {
	case c >= l.m:
		return 1
	case l.gradual:
		return l.p[i] + (1-l.p[i])*float64(c)/float64(l.m)
	}
	return l.p[i]
}

// Rate is the true success probability of an episode from checkpoint k:
// the product of the current probabilities of subtasks k..n-1.
func (l *Learner) Rate(k int) float64 {
	r := 1.0
	for i := k; i < len(l.p); i++ {
		r *= l.Prob(i)
	}
	return r
}

// Episode plays one episode from checkpoint k. On success each exercised,
// not yet mastered subtask earns one credit; failures teach nothing.
func (l *Learner) Episode(k int, rng *rand.Rand) bool {
	for i := k; i < len(l.p); i++ {
		if c := l.credits[i]; c < l.m && rng.Float64() >= l.Prob(i) {
			return false
		}
	}
	for i := k; i < len(l.p); i++ {
		if l.credits[i] < l.m {
			l.credits[i]++
			if l.credits[i] == l.m {
				l.left--
			}
		}
	}
	return true
}

// Mastered reports that every subtask is mastered: the task is solved end to end.
func (l *Learner) Mastered() bool { return l.left == 0 }
