package sim

import (
	"math"
	"runtime"
	"slices"

	"golang.org/x/sync/errgroup"
)

// Summary is one strategy's cost over many seeds.
type Summary struct {
	Strategy string  `json:"strategy"`
	Seeds    int     `json:"seeds"`
	Mean     float64 `json:"mean"`
	Std      float64 `json:"std"`
	P10      float64 `json:"p10"`
	P90      float64 `json:"p90"`
	// Ratio is Mean over the baseline's Mean (1 for the baseline).
	Ratio float64 `json:"ratio"`
	// ClosedForm is the thought experiment's expected cost: m/Πpᵢ for the
	// baseline, Σ m/pᵢ for rollback; NaN when none applies (gradual skill).
	ClosedForm float64 `json:"closed_form"`
	// Capped counts runs stopped at MaxEpisodes (their cost counts as the cap).
	Capped int `json:"capped"`
	// Moves is the mean number of checkpoints left as mastered per run;
	// Premature the mean number of those left while their true success
	// rate was below θ, and PrematureRuns the runs with at least one.
	Moves         float64 `json:"moves"`
	Premature     float64 `json:"premature"`
	PrematureRuns int     `json:"premature_runs"`
}

// Summarize runs strategy over seeds 0..seeds-1, in parallel.
func Summarize(strategy string, p Params, seeds int) (Summary, error) {
	costs := make([]float64, seeds)
	runs := make([]Run, seeds)
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range seeds {
		g.Go(func() error {
			r, err := Simulate(strategy, p, uint64(i), false)
			costs[i], runs[i] = float64(r.Episodes), r
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return Summary{}, err
	}
	s := Summary{Strategy: strategy, Seeds: seeds, ClosedForm: ClosedForm(strategy, p)}
	for i, c := range costs {
		s.Mean += c / float64(seeds)
		r := runs[i]
		s.Moves += float64(r.Moves) / float64(seeds)
		s.Premature += float64(r.Premature) / float64(seeds)
		if r.Capped {
			s.Capped++
		}
		if r.Premature > 0 {
			s.PrematureRuns++
		}
	}
	for _, c := range costs {
		s.Std += (c - s.Mean) * (c - s.Mean) / float64(max(seeds-1, 1))
	}
	s.Std = math.Sqrt(s.Std)
	slices.Sort(costs)
	s.P10, s.P90 = quantile(costs, 0.1), quantile(costs, 0.9)
	return s, nil
}

func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	return sorted[int(q*float64(len(sorted)-1)+0.5)]
}

// ClosedForm is the thought experiment's expected cost (docs/curriculum.md): m/pⁿ
// from the start, m·n/p with rollback (generalised to m/Πpᵢ and Σ m/pᵢ
// when one subtask is harder). NaN under gradual skill, which has none.
func ClosedForm(strategy string, p Params) float64 {
	if p.Gradual {
		return math.NaN()
	}
	probs := p.Probs()
	if strategy == Baseline {
		prod := 1.0
		for _, q := range probs {
			prod *= q
		}
		return float64(p.M) / prod
	}
	sum := 0.0
	for _, q := range probs {
		sum += float64(p.M) / q
	}
	return sum
}

// ClosedFormRatio is n·pⁿ⁻¹, rollback's cost over the baseline's (1/16 for
// n = 8, p = ½; the seed prints its reciprocal by mistake, docs/curriculum.md).
func ClosedFormRatio(p Params) float64 {
	return ClosedForm("rollback", p) / ClosedForm(Baseline, p)
}
