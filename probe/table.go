package probe

import (
	"fmt"
	"io"
	"strings"
)

// barWidth is the width of the terminal bar of a row.
const barWidth = 20

// Bar renders p̂ as a compact bar of barWidth cells with θ marked: filled
// cells up to p̂, '│' at θ where it falls in the empty part.
func Bar(phat, theta float64, known bool) string {
	if !known {
		return strings.Repeat("?", barWidth)
	}
	full := int(phat*barWidth + 0.5)
	mark := min(int(theta*barWidth+0.5), barWidth-1)
	var b strings.Builder
	for i := range barWidth {
		switch {
		case i < full:
			b.WriteString("█")
		case i == mark:
			b.WriteString("│")
		default:
			b.WriteString("·")
		}
	}
	return b.String()
}

const rowFmt = "%4s  %-44s %5s  %-13s %7s  %s%s\n"

// WriteTable prints one row per probed checkpoint — k, step k's action,
// p̂, its interval, successes/n, a bar — then the bottleneck and the
// rollout counts.
func WriteTable(w io.Writer, r *Result) error {
	pct := int(r.Confidence*100 + 0.5)
	fmt.Fprintf(w, rowFmt, "K", "STEP K (FIRST ACTION OF THE POLICY)", "P̂", fmt.Sprintf("%d%% CI", pct), "N", "P̂ (│ = θ)", "")
	for _, p := range r.Points {
		ci, ph := "", "—"
		if p.Known() {
			ph, ci = fmt.Sprintf("%.2f", p.PHat), fmt.Sprintf("[%.2f, %.2f]", p.Lo, p.Hi)
		}
		note := ""
		if r.Bottleneck != nil && p.K == r.Bottleneck.K {
			note = "  ◀ bottleneck"
		}
		if p.Errors > 0 {
			note += fmt.Sprintf("  (%d errors)", p.Errors)
		}
		fmt.Fprintf(w, rowFmt, fmt.Sprint(p.K), clip(summary(p), 44), ph, ci, fmt.Sprintf("%d/%d", p.Successes, p.N), Bar(p.PHat, r.Threshold, p.Known()), note)
	}
	fmt.Fprintln(w)
	if b := r.Bottleneck; b != nil {
		sure := "the whole interval is below θ"
		if !b.Confident {
			sure = "NOT confident: the interval reaches θ; more rollouts would tell"
		}
		fmt.Fprintf(w, "bottleneck: k=%d, step %d %s — p̂ %.2f < θ %.2f (%s)\n", b.K, b.K, summary(b.Point), b.PHat, r.Threshold, sure)
	} else {
		fmt.Fprintf(w, "no bottleneck: every probed checkpoint has p̂ ≥ θ %.2f\n", r.Threshold)
	}
	_, err := fmt.Fprintf(w, "%s policy, %s: %d rollouts at %d checkpoints (%d rounds); a sweep of the %d candidate checkpoints takes %d rollouts\n",
		r.Policy, r.Mode, r.TotalRollouts, len(r.Points), len(r.Rounds), r.Candidates, r.SweepRollouts)
	return err
}

func summary(p Point) string {
	if p.Summary == "" {
		return "(end of the trajectory)"
	}
	return p.Summary
}

func clip(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
