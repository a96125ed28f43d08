package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/schollz/progressbar/v3"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/curriculum/sim"
)

// sweepRow is one setting and strategy of a sweep: how far its ratio to
// the baseline lies from n·pⁿ⁻¹, and its premature moves, next to the
// reference rule's (--versus).
type sweepRow struct {
	N               int     `json:"n"`
	P               float64 `json:"p"`
	M               int     `json:"m"`
	ClosedFormRatio float64 `json:"closed_form_ratio"` // 0: none (gradual skill)
	Strategy        string  `json:"strategy"`
	// Deviation is ratio / closed_form_ratio − 1 (0 without a closed form).
	Deviation     float64      `json:"deviation"`
	Premature     float64      `json:"premature"`
	PrematureRuns int          `json:"premature_runs"`
	Capped        int          `json:"capped"`
	Versus        *sweepVersus `json:"versus,omitempty"`
}

// sweepVersus is the reference rule's deviation and premature moves at
// the same setting and strategy.
type sweepVersus struct {
	Deviation float64 `json:"deviation"`
	Premature float64 `json:"premature"`
}

// sweepSkip is a setting left out because its baseline would hit
// --max-episodes: the closed form m/pⁿ is above it.
type sweepSkip struct {
	N                  int     `json:"n"`
	P                  float64 `json:"p"`
	M                  int     `json:"m"`
	BaselineClosedForm float64 `json:"baseline_closed_form"`
}

// sweepTotal sums a strategy's rows: settings within --tolerance of
// n·pⁿ⁻¹, its reference's, and settings where it moved on early more often
// than the reference.
type sweepTotal struct {
	Strategy      string `json:"strategy"`
	Settings      int    `json:"settings"`
	Within        int    `json:"within_tolerance"`
	VersusWithin  int    `json:"versus_within_tolerance,omitempty"`
	MorePremature int    `json:"more_premature_than_versus,omitempty"`
}

// sweepResult is the JSON document of a sweep.
type sweepResult struct {
	Params  map[string]any `json:"params"`
	Rows    []sweepRow     `json:"settings"`
	Skipped []sweepSkip    `json:"skipped,omitempty"`
	Totals  []sweepTotal   `json:"totals"`
}

// runSweep simulates every combination of --n, --p and --m.
func runSweep(ctx context.Context, s Streams, log *slog.Logger, o *simulateOptions) error {
	base, strategies, err := o.params()
	if err != nil {
		return err
	}
	if o.plot != "" {
		return usageError("--plot: draws one setting, not a sweep")
	}
	versus, err := o.versusOptions()
	if err != nil {
		return err
	}
	res := sweepResult{Params: o.paramsMap(base)}
	res.Params["n"], res.Params["p"], res.Params["m"] = o.n, o.p, o.m
	res.Params["strategies"], res.Params["versus"], res.Params["tolerance"] = strategies, o.versus, o.tolerance
	bar := sweepBar(s.ErrOut, len(o.n)*len(o.p)*len(o.m))
	for _, n := range o.n {
		for _, pp := range o.p {
			for _, m := range o.m {
				if bar != nil {
					_ = bar.Add(1)
				}
				if err := ctx.Err(); err != nil {
					return fmt.Errorf("simulate sweep: %w", err)
				}
				p := base
				p.N, p.P, p.M = n, pp, m
				if c := sim.ClosedForm(sim.Baseline, p); c > float64(o.maxEpisodes) {
					res.Skipped = append(res.Skipped, sweepSkip{N: n, P: pp, M: m, BaselineClosedForm: c})
					continue
				}
				log.Debug("simulate sweep", "n", n, "p", pp, "m", m)
				rows, err := sweepSetting(p, strategies, o.seeds, versus)
				if err != nil {
					return err
				}
				for _, r := range rows {
					if r.Capped > 0 {
						fmt.Fprintf(s.ErrOut, "warning: n=%d p=%g m=%d %s: %d of %d runs hit --max-episodes %d (counted at the cap)\n", n, pp, m, r.Strategy, r.Capped, o.seeds, o.maxEpisodes)
					}
				}
				res.Rows = append(res.Rows, rows...)
			}
		}
	}
	if bar != nil {
		_ = bar.Finish()
	}
	if len(res.Skipped) > 0 {
		fmt.Fprintf(s.ErrOut, "skipped %d settings whose baseline m/pⁿ is above --max-episodes %d\n", len(res.Skipped), o.maxEpisodes)
	}
	res.Totals = sweepTotals(res.Rows, strategies, o.tolerance, versus != nil)
	if o.output == "json" {
		return writeJSON(s.Out, res)
	}
	printSweep(s.Out, res, o)
	return nil
}

// sweepBar is a progress bar over a sweep's settings on stderr when it is
// a terminal, else nil: a sweep of every strategy over a large grid runs
// for minutes.
func sweepBar(w io.Writer, total int) *progressbar.ProgressBar {
	if f, ok := w.(*os.File); !ok || !isTerminal(f) {
		return nil
	}
	return progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription("simulating"),
		progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(100_000_000))
}

// versusOptions are the reference rule's engine options, nil for none.
func (o *simulateOptions) versusOptions() ([]curriculum.Option, error) {
	if o.versus == "none" {
		return nil, nil
	}
	if !slices.Contains(curriculum.Decisions, curriculum.Decision(o.versus)) {
		return nil, usageError("--versus %q: expected posterior, window, sprt or none", o.versus)
	}
	ref := o.cur
	ref.decision = o.versus
	return ref.options()
}

// sweepSetting simulates one setting: each strategy, and the reference.
func sweepSetting(p sim.Params, strategies []string, seeds int, versus []curriculum.Option) ([]sweepRow, error) {
	sums, err := sim.Compare(strategies, p, seeds)
	if err != nil {
		return nil, err
	}
	closed := sim.ClosedFormRatio(p)
	dev := func(mean float64) float64 {
		if math.IsNaN(closed) {
			return 0
		}
		return mean/sums[0].Mean/closed - 1
	}
	var rows []sweepRow
	for _, sum := range sums[1:] {
		r := sweepRow{N: p.N, P: p.P, M: p.M, Strategy: sum.Strategy, Deviation: dev(sum.Mean),
			Premature: sum.Premature, PrematureRuns: sum.PrematureRuns, Capped: sum.Capped}
		if !math.IsNaN(closed) {
			r.ClosedFormRatio = closed
		}
		if versus != nil {
			ref := p
			ref.Options = versus
			vs, err := sim.Summarize(sum.Strategy, ref, seeds)
			if err != nil {
				return nil, err
			}
			r.Versus = &sweepVersus{Deviation: dev(vs.Mean), Premature: vs.Premature}
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func sweepTotals(rows []sweepRow, strategies []string, tol float64, versus bool) []sweepTotal {
	within := func(r sweepRow, d float64) bool { return r.ClosedFormRatio > 0 && math.Abs(d) <= tol }
	var out []sweepTotal
	for _, st := range strategies {
		t := sweepTotal{Strategy: st}
		for _, r := range rows {
			if r.Strategy != st {
				continue
			}
			t.Settings++
			if within(r, r.Deviation) {
				t.Within++
			}
			if versus {
				if within(r, r.Versus.Deviation) {
					t.VersusWithin++
				}
				if r.Premature > r.Versus.Premature {
					t.MorePremature++
				}
			}
		}
		out = append(out, t)
	}
	return out
}

func printSweep(w io.Writer, res sweepResult, o *simulateOptions) {
	fmt.Fprintf(w, "sweep: n %s × p %s × m %s, %d seeds each", joinValues(o.n), joinValues(o.p), joinValues(o.m), o.seeds)
	if len(res.Skipped) > 0 {
		fmt.Fprintf(w, "; %d settings skipped (baseline m/pⁿ above --max-episodes %d)", len(res.Skipped), o.maxEpisodes)
	}
	fmt.Fprintf(w, "\ndecision: %s\n", decisionLine(res.Params))
	vs := o.versus != "none"
	const row = "%4s %6s %4s %11s  %-13s %10s %10s"
	fmt.Fprintf(w, row, "N", "P", "M", "N·Pⁿ⁻¹", "STRATEGY", "DEVIATION", "PREMATURE")
	if vs {
		fmt.Fprintf(w, " %15s %15s", strings.ToUpper(o.versus)+"-DEV", strings.ToUpper(o.versus)+"-PREM")
	}
	fmt.Fprintln(w)
	for _, r := range res.Rows {
		closed, d := "—", "—"
		if r.ClosedFormRatio > 0 {
			closed, d = fmt.Sprintf("%.4g", r.ClosedFormRatio), fmt.Sprintf("%+.1f%%", 100*r.Deviation)
		}
		fmt.Fprintf(w, row, fmt.Sprint(r.N), fmt.Sprint(r.P), fmt.Sprint(r.M), closed, r.Strategy, d, fmt.Sprintf("%.3f", r.Premature))
		if vs {
			vd := "—"
			if r.ClosedFormRatio > 0 {
				vd = fmt.Sprintf("%+.1f%%", 100*r.Versus.Deviation)
			}
			fmt.Fprintf(w, " %15s %15s", vd, fmt.Sprintf("%.3f", r.Versus.Premature))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "DEVIATION: ratio to the baseline over n·pⁿ⁻¹, minus 1; PREMATURE: checkpoints left while the true success rate was below θ, per run")
	for _, t := range res.Totals {
		fmt.Fprintf(w, "%s: within %.0f%% of n·pⁿ⁻¹ at %d of %d settings", t.Strategy, 100*o.tolerance, t.Within, t.Settings)
		if vs {
			fmt.Fprintf(w, " (%s: %d); moved on early more often than %s at %d", o.versus, t.VersusWithin, o.versus, t.MorePremature)
		}
		fmt.Fprintln(w)
	}
}

// joinValues prints a flag's list as it was given: comma-separated.
func joinValues[T any](v []T) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}
