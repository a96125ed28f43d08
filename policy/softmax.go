package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// Softmax is the smallest policy that learns from the verifier's reward
// alone: at each step i of a task's trajectory it picks one of a few
// candidate actions (Candidates: the reference's, skipping the step, a
// realistic mistake) with probability softmax(θ[i]), and
// REINFORCE moves θ toward the choices of rewarded episodes. It is the
// seed's learner made real (docs/demo.md): it never sees the reference as
// the right answer, only which episodes passed, so from k = 0 it learns
// only after it happens on a whole correct sequence by chance, while from
// a late checkpoint one right choice is enough to be rewarded.
//
// It is safe for concurrent use.
type Softmax struct {
	mu       sync.Mutex
	cands    [][]trajectory.Step
	theta    [][]float64
	rate     float64
	baseline map[int]float64 // per starting checkpoint: the mean reward so far
	seen     map[int]int
}

// Choice is the candidate picked at step I.
type Choice struct {
	I, C int
}

// NewSoftmax returns a uniform policy over ref's candidates (workdir is
// the task's, where a mistaken clean-up runs), learning at rate (the
// REINFORCE step size).
func NewSoftmax(ref *trajectory.Trajectory, workdir string, rate float64) (*Softmax, error) {
	if rate <= 0 || math.IsNaN(rate) {
		return nil, fmt.Errorf("softmax policy: learning rate %v: expected > 0", rate)
	}
	s := &Softmax{rate: rate, baseline: map[int]float64{}, seen: map[int]int{}}
	for i := range ref.Steps {
		c := Candidates(ref, i, workdir)
		s.cands = append(s.cands, c)
		s.theta = append(s.theta, make([]float64, len(c)))
	}
	return s, nil
}

// Candidates are the actions the policy chooses from at step i of ref:
// the reference's own, skipping it (a shell `true`), and the realistic
// mistake the noisy policy makes there (Corrupt: the file written under
// scripts/ instead of where it belongs, the edit aimed at that path, a
// clean-up run in the working tree), without duplicates. The reference's
// is not marked: the policy learns which one is right from rewards. A
// noop step has only itself.
func Candidates(ref *trajectory.Trajectory, i int, workdir string) []trajectory.Step {
	own := bare(ref.Steps[i])
	if own.Action == trajectory.KindNoop {
		return []trajectory.Step{own}
	}
	out := []trajectory.Step{own}
	for _, st := range []trajectory.Step{{Action: trajectory.KindShell, Command: "true"}, Corrupt(own, workdir)} {
		dup := false
		for _, c := range out {
			dup = dup || sameAction(c, st)
		}
		if !dup {
			out = append(out, st)
		}
	}
	return out
}

// bare is st as an action: its recorded observation and chat messages
// are the reference's, not the policy's to see.
func bare(st trajectory.Step) trajectory.Step {
	st.Observation = nil
	st.Messages = nil
	return st
}

// sameAction compares two actions by what they do (their JSON, whose
// maps are written in key order).
func sameAction(a, b trajectory.Step) bool {
	ja, errA := json.Marshal(bare(a))
	jb, errB := json.Marshal(bare(b))
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// Steps is the trajectory length the policy acts over.
func (s *Softmax) Steps() int { return len(s.cands) }

// Sample picks step i's action: the candidate index and the action.
func (s *Softmax) Sample(i int, rng *rand.Rand) (int, trajectory.Step) {
	s.mu.Lock()
	p := softmax(s.theta[i])
	s.mu.Unlock()
	u, c := rng.Float64(), 0
	for ; c < len(p)-1; c++ {
		if u < p[c] {
			break
		}
		u -= p[c]
	}
	return c, s.cands[i][c]
}

// Prob is the probability of candidate c at step i.
func (s *Softmax) Prob(i, c int) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return softmax(s.theta[i])[c]
}

// Update is one REINFORCE step for an episode started at checkpoint k
// that made choices and earned reward: θ moves by rate·(reward − b)·∇log π
// of each choice, b being the mean reward of episodes from k so far. A
// run with no reward never moves: b stays 0, and so does every step.
func (s *Softmax) Update(k int, choices []Choice, reward float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	adv := reward - s.baseline[k]
	s.seen[k]++
	s.baseline[k] += (reward - s.baseline[k]) / float64(s.seen[k])
	if adv == 0 {
		return
	}
	for _, ch := range choices {
		p := softmax(s.theta[ch.I])
		for c := range s.theta[ch.I] {
			grad := -p[c]
			if c == ch.C {
				grad++
			}
			s.theta[ch.I][c] += s.rate * adv * grad
		}
	}
}

// softmax is the distribution of logits θ.
func softmax(theta []float64) []float64 {
	hi := math.Inf(-1)
	for _, v := range theta {
		hi = max(hi, v)
	}
	p := make([]float64, len(theta))
	sum := 0.0
	for c, v := range theta {
		p[c] = math.Exp(v - hi)
		sum += p[c]
	}
	for c := range p {
		p[c] /= sum
	}
	return p
}
