package server_test

import (
	"fmt"
	"io"
)

// datasetReport is the whole run: the engine baseline, one column per
// setting, the targets judged on them. It is what RBX_BENCH_OUT gets.
type datasetReport struct {
	Date     string           `json:"date"`
	Server   string           `json:"server"` // how the rbx binary was made
	Trainer  trainer          `json:"trainer"`
	Engine   engineRate       `json:"engine"`
	Settings []settingFigures `json:"settings"`
	Notes    []string         `json:"notes,omitempty"`
	Targets  []target         `json:"targets"`
}

// target is one line the goal is judged on; Met is nil when the figure
// is missing (a setting did not run, the server reports no budget).
type target struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Goal  string  `json:"goal"`
	Met   *bool   `json:"met"`
	Text  string  `json:"text"`
}

// judge computes the targets from small (10 tasks) and large (1000
// tasks, over the same images) and the engine rate; either setting may be
// nil when it failed. busybox (10 busybox tasks, the ratio of runs 1–15),
// when not nil, adds its ratio for information, not judged.
func judge(eng engineRate, small, large, busybox *settingFigures) []target {
	var out []target
	add := func(name, goal string, ok bool, v float64, met bool, text string) {
		t := target{Name: name, Goal: goal, Value: v, Text: text}
		if ok {
			t.Met = &met
		}
		out = append(out, t)
	}
	if small != nil && large != nil && small.EpisodesPerS > 0 {
		r := large.EpisodesPerS / small.EpisodesPerS
		add("episodes/s 1000 tasks / 10 tasks", "≥ 0.8", true, r, r >= 0.8, fmt.Sprintf("%.2f / %.2f = %.2f", large.EpisodesPerS, small.EpisodesPerS, r))
	} else {
		add("episodes/s 1000 tasks / 10 tasks", "≥ 0.8", false, 0, false, "a setting did not run")
	}
	if busybox != nil && large != nil && busybox.EpisodesPerS > 0 {
		r := large.EpisodesPerS / busybox.EpisodesPerS
		add("episodes/s 1000 tasks / 10 busybox tasks (not judged)", "info", false, r, false, fmt.Sprintf("%.2f / %.2f = %.2f", large.EpisodesPerS, busybox.EpisodesPerS, r))
	}
	if large != nil && eng.PerSecond > 0 {
		r := large.EpisodesPerS / eng.PerSecond
		add("episodes/s 1000 tasks / engine create+start+remove rate", "≥ 2", true, r, r >= 2, fmt.Sprintf("%.2f / %.2f = %.2f", large.EpisodesPerS, eng.PerSecond, r))
	}
	for _, f := range []*settingFigures{busybox, small, large} {
		if f == nil {
			continue
		}
		add("peak live / budget, "+f.Name, "≤ budget", f.Budget > 0, float64(f.PeakLive), f.PeakLive <= f.Budget, fmt.Sprintf("%d / %s", f.PeakLive, budgetText(f.Budget)))
		gib := f.PeakMemMiB / 1024
		add("shims + rbx peak memory, "+f.Name, "≤ 4 GiB", true, gib, gib <= 4, fmt.Sprintf("%.2f GiB", gib))
		add("start-up to /healthz, "+f.Name, "≤ 10 s", true, f.HealthyS, f.HealthyS <= 10, fmt.Sprintf("%.2f s", f.HealthyS))
	}
	return out
}

// writeTargets prints one line per target with its verdict.
func writeTargets(w io.Writer, ts []target) {
	for _, t := range ts {
		verdict := "n/a"
		switch {
		case t.Met == nil:
		case *t.Met:
			verdict = "met"
		default:
			verdict = "NOT met"
		}
		fmt.Fprintf(w, "%-58s %-22s (target %s): %s\n", t.Name, t.Text, t.Goal, verdict)
	}
}
