package curriculum

import "math/bits"

// pooledPriorWeight caps the pseudo-successes the posterior rule borrows
// from the final runs of the checkpoints already left (learntPrior): enough
// that s_min = 3 successes with one failure among them are judged
// (Beta(6, 2): P(p > ½) = 15/16 where the uniform prior gives 13/16), few
// enough that two failures among three successes outweigh them at the
// default α. The prior never lowers the successes asked for: s_min counts
// the checkpoint's own.
const pooledPriorWeight = 2

// posteriorVerdict is the default decision rule. Mastered when, for some
// run of the last j outcomes at k (1 ≤ j ≤ W) holding at least s_min(k)
// successes, a Beta(1 + a, 1) prior updated with that run gives
// P(p > θ) ≥ 1 − α. The learner only improves, so any run of recent
// outcomes is a sample of success rates no higher than the current one:
// the run that started when the skill was learnt speaks for the present
// without the failures that preceded it.
//
// s_min(k) and a are what the task's earlier checkpoints taught (empirical
// Bayes over the checkpoints of one task). On the task's first checkpoint
// s_min is the configured --min-successes (the fewest rewards that can
// teach a skill: fewer successes are luck, however clean) and a = 0, the
// uniform prior. Later, s_min(k) is learntSMin — the fewest successes after
// which the outcomes of the checkpoints already left reject, at level
// --learn-alpha, that the policy still succeeds below θ — and a is
// learntPrior, unless k is slower than those checkpoints (slowerThanLearnt):
// what they taught does not carry over, and k is judged as a first
// checkpoint.
//
// Low when the whole window gives P(p < θ) ≥ 1 − α under the uniform prior.
// clear (p̂ ≫ θ, Heuristic's δ_max) when no outcome in the window failed.
func (t *track) posteriorVerdict(s *kstats) judgement {
	var j judgement
	need, a := t.cfg.minSuccesses, 0.0
	if t.learns(s) {
		need, a = t.learntSMin(), t.learntPrior()
	}
	for n := 1; n <= s.inWindow; n++ {
		succ := bits.OnesCount64(s.window & (uint64(1)<<n - 1))
		if succ >= need && betaAbovePrior(a, succ, n-succ, t.cfg.theta) >= 1-t.cfg.alpha {
			j.mastered = true
			break
		}
	}
	succ := bits.OnesCount64(s.window)
	j.low = 1-betaAbove(succ, s.inWindow-succ, t.cfg.theta) >= 1-t.cfg.alpha
	j.clear = succ == s.inWindow
	return j
}

// learns reports that checkpoint s is judged with what the checkpoints
// already left taught: not on a task's first checkpoint, not with
// --learn-alpha 0, not where s is slower than those checkpoints.
func (t *track) learns(s *kstats) bool {
	return len(t.learnt) > 0 && t.cfg.learnAlpha > 0 && !t.slowerThanLearnt(s)
}

// leftRecord is what a checkpoint's outcomes said about the learning speed
// when the curriculum left it as mastered: succ successes and fails
// failures in all, the final run of successes (since the last failure)
// beginning at success number first.
type leftRecord struct{ succ, first, fails int }

// learn records checkpoint k's outcomes as it is left as mastered.
func (t *track) learn(k int) {
	s := &t.stats[k]
	if s.run == 0 {
		return // left on a failure (a late outcome): no final run to read
	}
	t.learnt = append(t.learnt, leftRecord{succ: s.succ, first: s.succ - s.run + 1, fails: s.n - s.succ})
}

// learntSMin is the fewest successes μ (floor ≤ μ ≤ --min-successes) after
// which the task's earlier checkpoints reject, at level α, the hypothesis
// H(μ+1): "the policy needs at least μ+1 successes at a checkpoint, and
// succeeds at a rate below θ until it has them". Under H(μ+1), in a
// checkpoint left with s successes whose final run began at success c,
// successes c, c+1, …, min(μ+1, s) followed each other with no failure
// between them: x = min(μ+1, s) − c transitions, each made at a rate below
// θ. So X, the clean transitions of one record, has P(X ≥ x) ≤ θˣ up to
// its cap min(μ+1, s) − 1 (a geometric variable truncated at the cap),
// and the records are independent: H(μ+1) is rejected when
// P(X₁ + … + X_J ≥ the observed total) ≤ --learn-alpha, computed
// exactly (cleanTail). The test says nothing at p ≥ θ, where clean runs are
// common before mastery; the floor keeps those errors harmless.
//
// The records say nothing about checkpoints where the policy is slower
// than on the ones already left: the rule assumes the task's learning
// speed does not jump from checkpoint to checkpoint
// (docs/curriculum.md#the-posterior-rule-default).
func (t *track) learntSMin() int {
	caps := make([]int, len(t.learnt))
	for mu := min(t.cfg.sMinFloor, t.cfg.minSuccesses); mu < t.cfg.minSuccesses; mu++ {
		clean := 0
		for i, r := range t.learnt {
			caps[i] = max(0, min(mu+1, r.succ)-1)
			clean += max(0, min(mu+1, r.succ)-r.first)
		}
		if clean > 0 && cleanTail(caps, clean, t.cfg.theta) <= t.cfg.learnAlpha {
			return mu
		}
	}
	return t.cfg.minSuccesses
}

// cleanTail is P(X₁ + … + X_J ≥ total) for independent Xᵢ with
// P(Xᵢ ≥ x) = θˣ for 0 ≤ x ≤ caps[i] and Xᵢ ≤ caps[i].
func cleanTail(caps []int, total int, theta float64) float64 {
	dist := []float64{1} // P(sum = s) over the records so far
	for _, c := range caps {
		next := make([]float64, len(dist)+c)
		for s, ps := range dist {
			if ps == 0 {
				continue
			}
			q := 1.0 // θˣ
			for x := 0; x <= c; x++ {
				px := q * (1 - theta) // P(X = x) below the cap
				if x == c {
					px = q
				}
				next[s+x] += ps * px
				q *= theta
			}
		}
		dist = next
	}
	tail := 0.0
	for s := total; s < len(dist); s++ {
		tail += dist[s]
	}
	return tail
}

// slowerThanLearnt reports that checkpoint s fails more than the checkpoints
// already left make plausible: with q their pooled success rate (Laplace),
// s.succ or fewer successes in s.n episodes has probability ≤ α. The learnt
// s_min rests on learning speed not jumping between checkpoints; a step
// much harder than the ones before it (a hard subtask after easy ones)
// breaks that, and its clean-run evidence, gathered at a high rate, says
// nothing about it: without this check, 0.005–0.19 premature moves per run
// at the hard-subtask points of docs/curriculum.md (the-posterior-rule-default).
// q counts post-mastery successes too, so it overstates the pre-mastery
// rate and the check errs towards the first checkpoint's s_min.
func (t *track) slowerThanLearnt(s *kstats) bool {
	succ, fails := 0, 0
	for _, r := range t.learnt {
		succ, fails = succ+r.succ, fails+r.fails
	}
	q := float64(succ+1) / float64(succ+fails+2)
	return 1-binomAtLeast(s.n, s.succ+1, q) <= t.cfg.alpha
}

// learntPrior is the pseudo-successes a of the Beta(1 + a, 1) prior on a
// checkpoint's current rate: the successes in the final runs of the
// checkpoints already left (the policy's rate once it has learnt a step),
// at most pooledPriorWeight.
func (t *track) learntPrior() float64 {
	a := 0
	for _, r := range t.learnt {
		a += r.succ - r.first + 1
	}
	return min(float64(a), pooledPriorWeight)
}

// binomAtLeast is P(Binomial(n, x) ≥ t).
func binomAtLeast(n, t int, x float64) float64 {
	if t <= 0 {
		return 1
	}
	if t > n {
		return 0
	}
	return 1 - betaAbove(t-1, n-t, x)
}

// betaAbovePrior is P(p > x) under Beta(1 + a + s, 1 + f) for an integer
// a (betaAbove with a extra successes).
func betaAbovePrior(a float64, s, f int, x float64) float64 {
	return betaAbove(s+int(a), f, x)
}

// betaAbove is P(p > x) under Beta(1+s, 1+f), the posterior of s successes
// and f failures from a uniform prior. For integer parameters the
// regularized incomplete beta is a binomial tail:
// P(p ≤ x) = I_x(1+s, 1+f) = P(Binomial(s+f+1, x) ≥ s+1).
func betaAbove(s, f int, x float64) float64 {
	switch {
	case x <= 0:
		return 1
	case x >= 1:
		return 0
	}
	n := s + f + 1
	term, sum := 1.0, 0.0 // P(Binomial(n, x) = i), from i = 0
	for range n {
		term *= 1 - x
	}
	for i := 0; i <= s; i++ {
		sum += term
		term *= float64(n-i) / float64(i+1) * x / (1 - x)
	}
	return min(sum, 1)
}
