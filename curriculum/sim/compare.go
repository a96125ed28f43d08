package sim

import "github.com/rbx-sandbox/rbx/curriculum"

// Strategies are the simulated strategies: the baseline, then the curricula.
func Strategies() []string {
	out := []string{Baseline}
	for _, s := range curriculum.Strategies {
		out = append(out, string(s))
	}
	return out
}

// Compare summarizes each strategy and fills in the ratios to the baseline
// (which is always run, first).
func Compare(strategies []string, p Params, seeds int) ([]Summary, error) {
	base, err := Summarize(Baseline, p, seeds)
	if err != nil {
		return nil, err
	}
	base.Ratio = 1
	out := []Summary{base}
	for _, s := range strategies {
		if s == Baseline {
			continue
		}
		sum, err := Summarize(s, p, seeds)
		if err != nil {
			return nil, err
		}
		sum.Ratio = sum.Mean / base.Mean
		out = append(out, sum)
	}
	return out, nil
}
