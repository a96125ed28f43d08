package sim

import (
	"fmt"
	"math/rand/v2"

	"github.com/rbx-sandbox/rbx/curriculum"
)

// Baseline names plain from-the-start sampling (always k = 0).
const Baseline = "baseline"

// Params describe one simulated setting.
type Params struct {
	N int     // subtasks
	P float64 // per-subtask success probability
	M int     // rewarded episodes to master a subtask
	// Hard, when HardP > 0, is the position of one much harder subtask
	// with success probability HardP.
	Hard  int
	HardP float64
	// Gradual makes skill improve linearly instead of jumping at m credits.
	Gradual bool
	// MaxEpisodes caps one run; a capped run reports Capped.
	MaxEpisodes int
	// Options configure the curriculum engine (strategy excluded).
	Options []curriculum.Option
}

// Probs returns the per-subtask success probabilities.
func (p Params) Probs() []float64 {
	ps := make([]float64, p.N)
	for i := range ps {
		ps[i] = p.P
	}
	if p.HardP > 0 && p.Hard >= 0 && p.Hard < p.N {
		ps[p.Hard] = p.HardP
	}
	return ps
}

// Point is one simulated episode.
type Point struct {
	K       int  `json:"k"`
	Success bool `json:"success"`
}

// Run is one seed's result.
type Run struct {
	Episodes int  `json:"episodes"`
	Capped   bool `json:"capped"`
	// Moves counts the checkpoints the curriculum left as mastered;
	// Premature those of them whose true success rate (Learner.Rate) was
	// below θ at that moment.
	Moves     int     `json:"moves"`
	Premature int     `json:"premature"`
	Trace     []Point `json:"-"`
}

// Simulate runs strategy (a curriculum.Strategy or Baseline) on a fresh
// learner until it has mastered every subtask, or MaxEpisodes.
func Simulate(strategy string, p Params, seed uint64, trace bool) (Run, error) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	l := NewLearner(p.Probs(), p.M, p.Gradual)
	next := func() (int, error) { return 0, nil }
	observe := func(int, bool) error { return nil }
	var r Run
	theta := 0.0 // set by the engine's θ
	moved := func(m curriculum.Mastered) {
		r.Moves++
		if l.Rate(m.K) < theta {
			r.Premature++
		}
	}
	if strategy != Baseline {
		opts := append(append([]curriculum.Option(nil), p.Options...),
			curriculum.WithStrategy(curriculum.Strategy(strategy)), curriculum.WithOnMastered(moved))
		e, err := curriculum.New(opts...)
		if err != nil {
			return Run{}, err
		}
		if err := e.Register(curriculum.TaskInfo{ID: "sim", T: p.N}); err != nil {
			return Run{}, err
		}
		theta = e.Theta()
		next = func() (int, error) { k, _, err := e.Next("sim"); return k, err }
		observe = func(k int, ok bool) error { return e.Observe("sim", k, ok) }
	}
	for !l.Mastered() {
		if p.MaxEpisodes > 0 && r.Episodes >= p.MaxEpisodes {
			r.Capped = true
			break
		}
		k, err := next()
		if err != nil {
			return r, fmt.Errorf("simulate %s: %w", strategy, err)
		}
		ok := l.Episode(k, rng)
		if err := observe(k, ok); err != nil {
			return r, fmt.Errorf("simulate %s: %w", strategy, err)
		}
		r.Episodes++
		if trace {
			r.Trace = append(r.Trace, Point{K: k, Success: ok})
		}
	}
	return r, nil
}
