package dashboard

import (
	"fmt"
	"strconv"

	"github.com/rbx-sandbox/rbx/server/api"
)

// checkpointChart: p̂ over the window at each checkpoint that saw an
// episode, as bars against θ and θ_high, the bottleneck and the stuck
// checkpoints flagged, the current k underlined.
func checkpointChart(st api.TaskState) string {
	t := max(st.T, 1)
	p := newPlot(-0.5, float64(t)-0.5, 0, 1)
	bk, hasB := bottleneck(st)
	attrs := []string{"data-points", strconv.Itoa(len(st.Checkpoints)), "data-k-now", strconv.Itoa(st.K)}
	label := fmt.Sprintf("%s: success rate per checkpoint (window W=%d)", st.Task, st.Window)
	if hasB {
		attrs = append(attrs, "data-bottleneck", strconv.Itoa(bk))
		label += fmt.Sprintf(", bottleneck k=%d", bk)
	}
	p.open(chartCheckpoints, label, attrs...)
	p.axes("checkpoint k", "p̂(k) over the window", []float64{0, .5, 1}, pct)
	p.xticks(10)
	markThetas(p, st)
	band := (p.x(1) - p.x(0)) * 0.8
	base := p.y(0)
	for _, c := range st.Checkpoints {
		x := p.x(float64(c.K)) - band/2
		top := p.y(c.Rate)
		fill := colOK
		switch {
		case c.Rate < st.Theta:
			fill = colFail
		case c.Rate < st.ThetaHigh:
			fill = colWarn
		}
		fmt.Fprintf(&p.b, `<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" data-k="%d" data-rate="%g">`,
			x, top, band, max(base-top, 0.5), fill, c.K, c.Rate)
		fmt.Fprintf(&p.b, `<title>k=%d: p̂ %s over the window, %d/%d successes in all, fail run %d%s</title></rect>`,
			c.K, pct(c.Rate), c.Successes, c.Episodes, c.FailRun, map[bool]string{true: ", STUCK"}[c.Stuck])
		if c.Stuck {
			p.text(p.x(float64(c.K)), top-4, "middle", colFail, 12, "stuck")
		}
	}
	if hasB {
		x := p.x(float64(bk))
		p.line(x, p.top, x, base, colTheta, 1.5, "3 2")
		p.text(x, p.top-4, "middle", colTheta, 11, fmt.Sprintf("bottleneck k=%d", bk))
	}
	if len(st.Checkpoints) == 0 {
		p.empty("no observed episode yet")
	}
	// The checkpoint being trained, under the axis.
	x := p.x(float64(st.K))
	fmt.Fprintf(&p.b, `<path class="know" d="M%.1f %.1f l-5 8 h10 z" fill="%s"><title>k now = %d (%s)</title></path>`,
		x, base+1, colCurrent, st.K, st.Phase)
	return p.close()
}
