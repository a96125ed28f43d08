package dashboard

import (
	"fmt"
	"strconv"

	"github.com/rbx-sandbox/rbx/server/api"
)

// The charts of a task page, by name (also the .svg file names).
const (
	chartSuccess     = "success"     // success rate over training
	chartServed      = "served"      // checkpoint served over training
	chartCheckpoints = "checkpoints" // success rate per checkpoint
)

var charts = map[string]func(api.TaskState) string{
	chartSuccess: successChart, chartServed: servedChart, chartCheckpoints: checkpointChart,
}

// successChart: the rolling success rate over observed episodes, each
// outcome a dot at 1 or 0, θ and θ_high marked.
func successChart(st api.TaskState) string {
	tr := trainingOf(st)
	first, last := float64(tr.n(0)), float64(tr.n(len(tr.events)-1))
	p := newPlot(first, max(last, first+1), 0, 1)
	p.open(chartSuccess, fmt.Sprintf("%s: success rate over training (%d observed episodes shown, rolling over W=%d)", st.Task, len(tr.events), tr.window),
		"data-points", strconv.Itoa(len(tr.events)))
	p.axes("observed episode", fmt.Sprintf("success rate (rolling, W=%d)", tr.window), []float64{0, .5, 1}, pct)
	if len(tr.events) == 0 {
		p.empty("no observed episode yet")
		return p.close()
	}
	p.xticks(6)
	markThetas(p, st)
	rate := tr.rolling()
	xs := make([]float64, len(rate))
	for i := range rate {
		xs[i] = float64(tr.n(i))
	}
	p.polyline(xs, rate, colLine, 2, false)
	for i, ev := range tr.events {
		y, fill, what := 0.0, colFail, "failure"
		if ev.Success {
			y, fill, what = 1, colOK, "success"
		}
		p.dot(xs[i], y, 2.5, fill, fmt.Sprintf("#%d %s at k=%d (%s), rolling rate %s", tr.n(i), what, ev.K, ev.Purpose, pct(rate[i])),
			"data-k", strconv.Itoa(ev.K), "data-success", strconv.FormatBool(ev.Success))
	}
	return p.close()
}

// servedChart: the checkpoint of each observed episode, coloured by
// purpose, the curriculum's position as a step line walking back to 0.
func servedChart(st api.TaskState) string {
	tr := trainingOf(st)
	first, last := float64(tr.n(0)), float64(tr.n(len(tr.events)-1))
	p := newPlot(first, max(last, first+1), 0, float64(max(st.T, 1)))
	p.open(chartServed, fmt.Sprintf("%s: checkpoint served over training (k now %d)", st.Task, st.K),
		"data-points", strconv.Itoa(len(tr.events)), "data-k-now", strconv.Itoa(st.K))
	p.axes("observed episode", "checkpoint k", kTicks(st.T), func(v float64) string { return fmt.Sprintf("%g", v) })
	if len(tr.events) == 0 {
		p.empty("no observed episode yet")
		return p.close()
	}
	p.xticks(6)
	p.hline(float64(st.K), colCurrent, "4 3", fmt.Sprintf("k=%d", st.K))
	var xs, ks []float64
	for i, ev := range tr.events {
		if positional(ev.Purpose) {
			xs, ks = append(xs, float64(tr.n(i))), append(ks, float64(ev.K))
		}
	}
	p.polyline(xs, ks, colLine, 1.5, true)
	for i, ev := range tr.events {
		p.dot(float64(tr.n(i)), float64(ev.K), 3, purposeColour(ev.Purpose), fmt.Sprintf("#%d k=%d (%s) %s", tr.n(i), ev.K, ev.Purpose, outcomeWord(ev.Success)),
			"data-k", strconv.Itoa(ev.K), "data-purpose", ev.Purpose)
	}
	return p.close()
}

// kTicks are about five checkpoint labels from 0 to T.
func kTicks(t int) []float64 {
	step := max(1, (t+4)/5)
	var out []float64
	for k := 0; k <= t; k += step {
		out = append(out, float64(k))
	}
	return out
}

func markThetas(p *plot, st api.TaskState) {
	if st.Theta > 0 {
		p.hline(st.Theta, colTheta, "6 4", "θ")
	}
	if st.ThetaHigh > 0 {
		p.hline(st.ThetaHigh, colOK, "2 3", "θ high")
	}
}

func purposeColour(purpose string) string {
	switch purpose {
	case "rollback":
		return colLine
	case "bottleneck":
		return colFail
	case "learn":
		return colCurrent
	case "solved":
		return colOK
	case "probe":
		return colMuted
	}
	return colWarn
}

func outcomeWord(ok bool) string {
	if ok {
		return "success"
	}
	return "failure"
}
