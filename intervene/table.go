package intervene

import (
	"fmt"
	"io"
	"strings"
)

const rowFmt = "%7s  %-11s %5s  %-36s %-16s %6s  %7s  %9s  %6s  %6s  %s\n"

// WriteTable prints one row per rollout, then the summary: rollouts,
// succeeded on-policy, failed, rescued, dropped by the shift filter, kept,
// and what the rubric evidence cost (scratch scorings, actions replayed
// into scratch sandboxes, their time).
func WriteTable(w io.Writer, r *Result) error {
	fmt.Fprintf(w, rowFmt, "ROLLOUT", "OUTCOME", "STEPS", "EVIDENCE (RUBRIC AFTER t)", "EVIDENCE COST", "FORK t", "ATTEMPT", "INTERVENED", "SHARE", "TOKENS", "FILTER")
	for _, row := range r.Rows {
		fork, att, iv, share, tok, filter := "—", "—", "—", "—", "—", ""
		if row.ForkT >= 0 {
			fork, att = fmt.Sprint(row.ForkT), fmt.Sprint(row.Attempts)
		}
		if row.Mask != nil {
			iv = fmt.Sprintf("%d/%d", row.IntervenerSteps, len(row.Mask))
			share, tok = fmt.Sprintf("%.2f", row.Share), fmt.Sprintf("%.2f", row.TokenShare)
		}
		switch {
		case row.Kept:
			filter = "kept"
		case row.Outcome == OutcomeRescued && row.ShiftExceeded:
			filter = "dropped: shift_exceeded"
		case row.Error != "":
			filter = clip(row.Error, 60)
		}
		fmt.Fprintf(w, rowFmt, fmt.Sprint(row.Index), row.Outcome, fmt.Sprint(row.Steps), clip(scores(row.Evidence), 36), cost(row.Cost), fork, att, iv, share, tok, filter)
	}
	fmt.Fprintf(w, "\n%s from k=%d of %s (T=%d), intervener %s (budget %d), shift filter %.2f\n",
		r.Policy, r.K, r.Trajectory, r.T, r.Intervener, r.Budget, r.MaxShare)
	var total EvidenceCost
	for _, row := range r.Rows {
		total.Calls += row.Cost.Calls
		total.StepsReplayed += row.Cost.StepsReplayed
		total.MS += row.Cost.MS
	}
	fmt.Fprintf(w, "evidence: %d scratch scoring(s), %d action(s) replayed, %.1f s\n", total.Calls, total.StepsReplayed, total.MS/1000)
	_, err := fmt.Fprintf(w, "rollouts %d  succeeded %d  failed %d  rescued %d (%.0f%%)  not rescued %d  dropped by shift filter %d  kept %d  errors %d\n",
		r.Rollouts, r.Succeeded, r.Failed, r.Rescued, 100*r.RescueRate, r.NotRescued, r.Dropped, r.Kept, r.Errors)
	return err
}

// cost is a rollout's evidence cost: scratch scorings, actions replayed
// into scratch sandboxes, seconds.
func cost(c EvidenceCost) string {
	if c.Calls == 0 {
		return "—"
	}
	return fmt.Sprintf("%d×/%d/%.1fs", c.Calls, c.StepsReplayed, c.MS/1000)
}

func scores(s []float64) string {
	if len(s) == 0 {
		return "—"
	}
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = fmt.Sprintf("%.2g", x)
	}
	return strings.Join(parts, " ")
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
