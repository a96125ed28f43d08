package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/curriculum/sim"
)

// simulateOptions are the flags of `rbx simulate`.
type simulateOptions struct {
	n, m                           []int // several values: a sweep over n × p × m
	p                              []float64
	seeds, hard, maxEpisodes       int
	hardP, tolerance               float64
	strategy, plot, output, versus string
	gradual                        bool
	cur                            curriculumFlags
}

func newSimulateCmd(s Streams, logger func() *slog.Logger) *cobra.Command {
	o := &simulateOptions{}
	cmd := &cobra.Command{
		Use:   "simulate",
		Short: "Compare rollback curricula on a simulated learner (the rollback-curriculum paper's thought experiment)",
		Long: `Simulate drives each curriculum strategy, and plain from-the-start sampling (the
baseline), with the rollback-curriculum paper's thought-experiment learner: n sequential subtasks, each
succeeding with probability p, mastered after m rewarded episodes that exercised it,
nothing learnt from failures. It prints the episodes needed until the task is solved
end to end (mean, std, p10, p90 over the seeds), the ratio to the baseline, the
closed forms m/pⁿ (baseline), m·n/p (rollback) and n·pⁿ⁻¹ (their ratio), and per
strategy the checkpoints it left as mastered and the premature ones among them (left
while the learner's true success rate from there was below θ). The curriculum flags
(--decision, --alpha, ...) are rbx serve's (docs/curriculum.md#decision-rules).

Several values of --n, --p or --m make a sweep over every combination: one line per
setting and strategy with the deviation of its ratio to the baseline from n·pⁿ⁻¹ and
its premature moves, next to those of the --versus decision rule (the window rule by
default), and a summary of both.`,
		Example: `  rbx simulate --n 8 --p 0.5 --m 4 --strategy all --seeds 200
  rbx simulate --n 10 --p 0.6 --m 3 --strategy sequential --seeds 400 --decision window
  rbx simulate --p 0.9 --hard 1 --hard-p 0.1 --plot rollback.png
  rbx simulate --strategy sequential --seeds 400 --n 4,6,8,12,16 --p 0.35,0.45,0.5,0.7,0.9 --m 2,3,4,5,6`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSimulate(cmd.Context(), s, logger(), o)
		},
	}
	f := cmd.Flags()
	f.IntSliceVar(&o.n, "n", []int{8}, "number of sequential subtasks (checkpoints 0..n-1); several: a sweep")
	f.Float64SliceVar(&o.p, "p", []float64{0.5}, "per-subtask success probability before mastery; several: a sweep")
	f.IntSliceVar(&o.m, "m", []int{4}, "rewarded episodes that master a subtask; several: a sweep")
	f.StringVar(&o.versus, "versus", string(curriculum.DecisionWindow), "a sweep's reference decision rule (posterior, window, sprt), or none")
	f.Float64Var(&o.tolerance, "tolerance", 0.25, "a sweep's summary counts the settings within this share of n·pⁿ⁻¹")
	f.StringVar(&o.strategy, "strategy", "all", "all, sequential, heuristic, parallel or search-learn")
	f.IntVar(&o.seeds, "seeds", 200, "independent runs per strategy")
	f.IntVar(&o.hard, "hard", -1, "position of one much harder subtask (with --hard-p)")
	f.Float64Var(&o.hardP, "hard-p", 0.1, "success probability of the --hard subtask")
	f.BoolVar(&o.gradual, "gradual", false, "skill improves linearly over the m rewarded episodes")
	f.IntVar(&o.maxEpisodes, "max-episodes", 200_000, "cap on episodes per run; capped runs are reported")
	f.StringVar(&o.plot, "plot", "", "write rollback position and success rate over episodes (seed 0) to this PNG")
	f.StringVarP(&o.output, "output", "o", "table", "output format: table or json")
	o.cur.register(cmd)
	return cmd
}

// simulateResult is the JSON document `rbx simulate --output json` prints.
type simulateResult struct {
	Params          map[string]any `json:"params"`
	ClosedFormRatio *float64       `json:"closed_form_ratio,omitempty"`
	Results         []sim.Summary  `json:"results"`
	Findings        []string       `json:"findings,omitempty"`
}

func runSimulate(ctx context.Context, s Streams, log *slog.Logger, o *simulateOptions) error {
	if o.sweep() {
		return runSweep(ctx, s, log, o)
	}
	p, strategies, err := o.params()
	if err != nil {
		return err
	}
	log.Debug("simulate", "params", p, "strategies", strategies)
	sums, err := sim.Compare(strategies, p, o.seeds)
	if err != nil {
		return err
	}
	res := simulateResult{Results: sums, Findings: findings(sums, p), Params: o.paramsMap(p)}
	if r := sim.ClosedFormRatio(p); !math.IsNaN(r) {
		res.ClosedFormRatio = &r
	}
	if o.plot != "" {
		if err := plotSeries(o.plot, strategies, p); err != nil {
			return err
		}
		fmt.Fprintf(s.ErrOut, "wrote %s\n", o.plot)
	}
	for _, sum := range sums {
		if sum.Capped > 0 {
			fmt.Fprintf(s.ErrOut, "warning: %s: %d of %d runs hit --max-episodes %d (counted at the cap)\n", sum.Strategy, sum.Capped, sum.Seeds, p.MaxEpisodes)
		}
	}
	if o.output == "json" {
		for i := range res.Results { // JSON has no NaN
			if math.IsNaN(res.Results[i].ClosedForm) {
				res.Results[i].ClosedForm = 0
			}
		}
		return writeJSON(s.Out, res)
	}
	printSimulation(s.Out, res, p)
	return nil
}

// paramsMap is the parameters a result reports (JSON "params", and what
// decisionLine reads): setting p's, the run's and the curriculum flags.
func (o *simulateOptions) paramsMap(p sim.Params) map[string]any {
	m := map[string]any{
		"n": p.N, "p": p.P, "m": p.M, "seeds": o.seeds, "gradual": p.Gradual, "max_episodes": p.MaxEpisodes,
		"decision": o.cur.decision, "alpha": o.cur.alpha, "min_successes": o.cur.minSuccesses,
		"learn_alpha": o.cur.learnAlpha, "min_successes_floor": o.cur.minSuccessFloor,
		"sprt_alpha": o.cur.sprtAlpha, "delta": o.cur.delta, "theta": o.cur.theta, "theta_high": o.cur.thetaHigh,
		"window": o.cur.window, "delta_max": o.cur.deltaMax, "segments": o.cur.segments,
		"anchors": o.cur.anchors, "probes": o.cur.probes}
	if p.HardP > 0 {
		m["hard"], m["hard_p"] = p.Hard, p.HardP
	}
	return m
}

// sweep reports that --n, --p or --m has several values.
func (o *simulateOptions) sweep() bool { return len(o.n)*len(o.p)*len(o.m) > 1 }

// params checks the flags and returns the first setting (the only one
// outside a sweep) with the strategies to run.
func (o *simulateOptions) params() (sim.Params, []string, error) {
	switch {
	case o.output != "table" && o.output != "json":
		return sim.Params{}, nil, usageError("--output %q: expected table or json", o.output)
	case len(o.n) == 0 || len(o.p) == 0 || len(o.m) == 0:
		return sim.Params{}, nil, usageError("--n, --p and --m: expected at least one value each")
	case o.hardP <= 0 || o.hardP > 1:
		return sim.Params{}, nil, usageError("--hard-p %v: expected (0, 1]", o.hardP)
	case o.seeds < 1, o.maxEpisodes < 1:
		return sim.Params{}, nil, usageError("--seeds and --max-episodes: expected at least 1")
	case o.tolerance <= 0:
		return sim.Params{}, nil, usageError("--tolerance %v: expected above 0", o.tolerance)
	}
	for _, n := range o.n {
		if n < 1 || n > 64 {
			return sim.Params{}, nil, usageError("--n %d: expected 1..64", n)
		}
		if o.hard >= n {
			return sim.Params{}, nil, usageError("--hard %d: expected 0..%d", o.hard, n-1)
		}
	}
	for _, p := range o.p {
		if p <= 0 || p > 1 {
			return sim.Params{}, nil, usageError("--p %v: expected (0, 1]", p)
		}
	}
	for _, m := range o.m {
		if m < 1 {
			return sim.Params{}, nil, usageError("--m %d: expected at least 1", m)
		}
	}
	strategies := sim.Strategies()[1:]
	if o.strategy != "all" {
		if !slices.Contains(strategies, o.strategy) {
			return sim.Params{}, nil, usageError("--strategy %q: expected all, %s", o.strategy, strings.Join(strategies, ", "))
		}
		strategies = []string{o.strategy}
	}
	opts, err := o.cur.options()
	if err != nil {
		return sim.Params{}, nil, err
	}
	p := sim.Params{N: o.n[0], P: o.p[0], M: o.m[0], Gradual: o.gradual, MaxEpisodes: o.maxEpisodes, Options: opts}
	if o.hard >= 0 {
		p.Hard, p.HardP = o.hard, o.hardP
	}
	return p, strategies, nil
}

// findings compares Heuristic and Search-Learn with Sequential (the paper's comparison).
func findings(sums []sim.Summary, p sim.Params) []string {
	by := map[string]sim.Summary{}
	for _, s := range sums {
		by[s.Strategy] = s
	}
	seq, ok := by[string(curriculum.Sequential)]
	if !ok {
		return nil
	}
	where := "uniform subtasks"
	if p.HardP > 0 {
		where = fmt.Sprintf("one hard subtask (p=%g) at position %d", p.HardP, p.Hard)
	}
	var out []string
	if h, ok := by[string(curriculum.Heuristic)]; ok {
		if sl, ok := by[string(curriculum.SearchLearn)]; ok {
			verdict := "holds"
			if sl.Mean > h.Mean || h.Mean >= seq.Mean {
				verdict = "does NOT hold"
			}
			out = append(out, fmt.Sprintf("the paper's ordering search-learn ≤ heuristic < sequential %s with %s: %.1f, %.1f, %.1f",
				verdict, where, sl.Mean, h.Mean, seq.Mean))
		}
	}
	for _, name := range []string{string(curriculum.Heuristic), string(curriculum.SearchLearn), string(curriculum.Parallel)} {
		if s, ok := by[name]; ok {
			verdict := "fewer"
			if s.Mean >= seq.Mean {
				verdict = "NOT fewer"
			}
			out = append(out, fmt.Sprintf("%s needs %s episodes than sequential with %s: %.1f vs %.1f (%+.0f%%)",
				name, verdict, where, s.Mean, seq.Mean, 100*(s.Mean/seq.Mean-1)))
		}
	}
	return out
}

func printSimulation(w io.Writer, res simulateResult, p sim.Params) {
	fmt.Fprintf(w, "learner: n=%d p=%g m=%d", p.N, p.P, p.M)
	if p.HardP > 0 {
		fmt.Fprintf(w, ", hard subtask %d with p=%g", p.Hard, p.HardP)
	}
	if p.Gradual {
		fmt.Fprint(w, ", gradual skill")
	}
	fmt.Fprintf(w, "; episodes until solved end to end, %v seeds\n", res.Params["seeds"])
	fmt.Fprintf(w, "decision: %s\n", decisionLine(res.Params))
	const row = "%-14s %9s %9s %9s %9s %9s %11s %7s %10s %9s %7s\n"
	fmt.Fprintf(w, row, "STRATEGY", "MEAN", "STD", "P10", "P90", "RATIO", "CLOSED-FORM", "MOVES", "PREMATURE", "PREM-RUNS", "CAPPED")
	for _, s := range res.Results {
		closed := "—"
		if !math.IsNaN(s.ClosedForm) {
			closed = num(s.ClosedForm)
		}
		moves, prem, runs := "—", "—", "—"
		if s.Strategy != sim.Baseline {
			moves, prem, runs = fmt.Sprintf("%.1f", s.Moves), fmt.Sprintf("%.3f", s.Premature), fmt.Sprint(s.PrematureRuns)
		}
		fmt.Fprintf(w, row, s.Strategy, fmt.Sprintf("%.1f", s.Mean), fmt.Sprintf("%.1f", s.Std), fmt.Sprintf("%.0f", s.P10),
			fmt.Sprintf("%.0f", s.P90), fmt.Sprintf("%.4g", s.Ratio), closed, moves, prem, runs, fmt.Sprint(s.Capped))
	}
	fmt.Fprintln(w, "MOVES: checkpoints left as mastered per run; PREMATURE: of them, left while the true success rate was below θ, per run; PREM-RUNS: runs with at least one")
	if r := res.ClosedFormRatio; r != nil {
		fmt.Fprintf(w, "\nclosed form: baseline m/pⁿ, rollback Σ m/pᵢ (= m·n/p); rollback/baseline = %.4g", *r)
		if p.HardP == 0 {
			fmt.Fprintf(w, " = n·pⁿ⁻¹ (1/%.3g)", 1 / *r)
		}
		fmt.Fprintln(w)
	}
	for _, f := range res.Findings {
		fmt.Fprintln(w, f)
	}
}

// decisionLine describes the decision rule and its parameters.
func decisionLine(p map[string]any) string {
	switch p["decision"] {
	case string(curriculum.DecisionWindow):
		return fmt.Sprintf("window (mastered at p̂ ≥ θ_high = %v over W = %v, bottleneck below θ = %v)", p["theta_high"], p["window"], p["theta"])
	case string(curriculum.DecisionSPRT):
		th, d := p["theta"].(float64), p["delta"].(float64)
		return fmt.Sprintf("sprt (p0 = θ−δ = %.3g against p1 = θ+δ = %.3g, error rates %v)", th-d, th+d, p["sprt_alpha"])
	}
	later := "" // the learnt s_min, down to --min-successes-floor
	ms, _ := p["min_successes"].(int)
	floor, _ := p["min_successes_floor"].(int)
	if la, _ := p["learn_alpha"].(float64); la > 0 && ms > floor {
		later = fmt.Sprintf(", later down to ≥ %d as learnt from the checkpoints left at error rate %v", floor, la)
	}
	return fmt.Sprintf("posterior (P(p > θ = %v) ≥ 1−α, α = %v, on a run of the last W = %v outcomes with ≥ %v successes%s)",
		p["theta"], p["alpha"], p["window"], p["min_successes"], later)
}

// plotSeries simulates seed 0 of each curriculum and plots it (the baseline
// always starts at k = 0 and would only stretch the axis).
func plotSeries(path string, strategies []string, p sim.Params) error {
	var series []sim.Series
	for _, st := range strategies {
		r, err := sim.Simulate(st, p, 0, true)
		if err != nil {
			return err
		}
		series = append(series, sim.Series{Strategy: st, Trace: r.Trace})
	}
	return sim.Plot(path, series, 8)
}

// num prints a cost with one decimal, or in exponent form when huge.
func num(v float64) string {
	if v >= 1e7 {
		return fmt.Sprintf("%.3g", v)
	}
	return fmt.Sprintf("%.1f", v)
}
