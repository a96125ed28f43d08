package probe

import "sort"

// Point is p̂ at one checkpoint.
type Point struct {
	K int `json:"k"`
	// Action and Summary describe step k, the first the policy plays from
	// k; empty at k = T.
	Action  string `json:"action,omitempty"`
	Summary string `json:"summary,omitempty"`
	// N counts the rollouts that reached a verdict; Errors those that did
	// not (reset or infrastructure failure, policy error).
	N         int     `json:"n"`
	Successes int     `json:"successes"`
	Errors    int     `json:"errors"`
	PHat      float64 `json:"p_hat"`
	// Lo and Hi bound p̂'s Wilson interval.
	Lo float64 `json:"ci_low"`
	Hi float64 `json:"ci_high"`
	// Round is the search round that probed it (0 in a sweep).
	Round int `json:"round"`
	// Steps is the mean number of actions per episode.
	Steps float64 `json:"mean_steps"`
	// LastError is an example error, when Errors > 0.
	LastError string `json:"last_error,omitempty"`
}

// Known reports whether any rollout reached a verdict.
func (p Point) Known() bool { return p.N > 0 }

// Bottleneck is where success collapses.
type Bottleneck struct {
	Point
	// Confident is true when the whole interval lies below θ, so the
	// verdict does not hinge on a few rollouts.
	Confident bool `json:"confident"`
}

// Result is a probe's outcome.
type Result struct {
	Task       string  `json:"task"`
	Trajectory string  `json:"trajectory"`
	Policy     string  `json:"policy"`
	Mode       string  `json:"mode"`
	T          int     `json:"steps_total"`
	Rollouts   int     `json:"rollouts_per_checkpoint"`
	Threshold  float64 `json:"threshold"`
	Confidence float64 `json:"confidence"`
	// Points are sorted by k.
	Points []Point `json:"points"`
	// Bottleneck is nil when no checkpoint falls below θ.
	Bottleneck *Bottleneck `json:"bottleneck"`
	// Rounds lists the checkpoints each round probed (one round in a sweep).
	Rounds [][]int `json:"rounds"`
	// Candidates counts the selected checkpoints; TotalRollouts the
	// rollouts run; SweepRollouts what a sweep of the candidates costs.
	Candidates    int `json:"candidates"`
	TotalRollouts int `json:"total_rollouts"`
	SweepRollouts int `json:"sweep_rollouts"`
}

func (r *Result) finish() {
	sort.Slice(r.Points, func(i, j int) bool { return r.Points[i].K < r.Points[j].K })
	r.TotalRollouts = 0
	for _, p := range r.Points {
		r.TotalRollouts += p.N + p.Errors
	}
	r.Bottleneck = nil
	if i := FindBottleneck(r.Points, r.Threshold); i >= 0 {
		p := r.Points[i]
		r.Bottleneck = &Bottleneck{Point: p, Confident: p.Hi < r.Threshold}
	}
}
