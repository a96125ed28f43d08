package prefilter

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rbx-sandbox/rbx/reason"
)

// WriteTable prints rep for people: one row per trajectory, then the counts
// by verdict and reason, and the time taken.
func WriteTable(w io.Writer, rep *Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TRAJECTORY\tTASK\tSTATUS\tREASON\tPASSED\tDEEPEST\tREPEAT\tDETAIL")
	for _, r := range rep.Results {
		reason := string(r.Reason)
		if reason == "" {
			reason = "-"
		}
		status := string(r.Status)
		if r.Resumed {
			status += " (resumed)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d/%d\t%d/%d\t%s\t%s\n", r.Key.display(), dash(r.Task), status, reason,
			r.Passed, len(r.Repeats), r.Deepest, r.T, r.Duration.Round(10*time.Millisecond), oneLine(detail(r), 120))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	s := rep.Summary
	fmt.Fprintf(w, "\nkept %d, rejected %d, interrupted %d, undecided %d of %d trajectories (%d×, concurrency %d) in %s\n",
		s.Kept, s.Rejected, s.Interrupted, s.Undecided, s.Total, rep.Repeats, rep.Concurrency, rep.Duration.Round(10*time.Millisecond))
	if s.Rejected > 0 {
		var parts []string
		for _, reason := range Reasons {
			if n := s.ByReason[reason]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", reason, n))
			}
		}
		fmt.Fprintf(w, "rejected: %s\n", strings.Join(parts, ", "))
	}
	if s.Resumed > 0 {
		fmt.Fprintf(w, "%d verdict(s) taken from the previous report (--resume)\n", s.Resumed)
	}
	if rep.Interrupted {
		fmt.Fprintln(w, "interrupted: the trajectories it left unjudged are judged by a run with --resume")
	}
	return nil
}

// detail is the verdict's explanation; a failed verifier's names the
// failing tests when its output reports them.
func detail(r Result) string {
	if (r.Reason != reason.VerifyFailed && r.Reason != reason.Flaky) || r.Failure == nil {
		return r.Detail
	}
	d := r.Detail
	if r.Failure.Network != "" {
		d += fmt.Sprintf(" (the tests tried the network: %q)", r.Failure.Network)
	}
	r.Detail = d
	names := r.Failure.Failing
	if len(names) == 0 {
		names = FailingTests(r.Failure.Output)
	}
	if len(names) == 0 {
		return r.Detail
	}
	const shown = 3
	s := r.Detail + ": " + strings.Join(names[:min(shown, len(names))], ", ")
	if len(names) > shown {
		s += fmt.Sprintf(" (+%d)", len(names)-shown)
	}
	return s
}

// display is "file#id", or "file:line" for a JSONL line without an id.
func (k Key) display() string {
	s := k.File
	if k.Line > 0 {
		s += fmt.Sprintf(":%d", k.Line)
	}
	if k.ID != "" {
		s += "#" + k.ID
	}
	return s
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
