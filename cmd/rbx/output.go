package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rbx-sandbox/rbx/replayer"
)

// stepTable prints one row per replayed step as it completes.
type stepTable struct {
	w       io.Writer
	enabled bool
}

func newStepTable(w io.Writer, enabled bool) *stepTable { return &stepTable{w: w, enabled: enabled} }

const rowFormat = "%-5s %-10s %-9s %-5s %9s  %s\n"

func (t *stepTable) header() {
	if t.enabled {
		fmt.Fprintf(t.w, rowFormat, "STEP", "ACTION", "STATUS", "EXIT", "TIME", "SUMMARY")
	}
}

func (t *stepTable) row(r replayer.StepResult) {
	if !t.enabled {
		return
	}
	status := string(r.Status)
	if r.TimedOut {
		status = "timeout"
	}
	exit := fmt.Sprint(r.ExitCode)
	if r.Expected != nil && *r.Expected != r.ExitCode {
		exit = fmt.Sprintf("%d≠%d", r.ExitCode, *r.Expected)
	}
	fmt.Fprintf(t.w, rowFormat, fmt.Sprint(r.Index), r.Action, status, exit, round(r.Duration), strings.TrimPrefix(r.Summary, string(r.Action)+" "))
}

func (t *stepTable) summary(res *replayResult) {
	if rep := res.Report; rep == nil {
		// verify without a replay: only the verdict below
	} else if d := rep.Divergence; d != nil {
		fmt.Fprintf(t.w, "\nDIVERGED at step %d (%s): %s\n", d.Index, d.Summary, d.Reason)
		if d.Expected != "" || d.Got != "" {
			fmt.Fprintf(t.w, "  expected: %s\n  actual:   %s\n", d.Expected, d.Got)
		}
		if d.Diff != nil {
			writeDiff(t.w, d.Diff)
		}
		if d.Err != nil {
			fmt.Fprintf(t.w, "  error:    %v\n", d.Err)
		}
		if d.Output != "" {
			fmt.Fprintf(t.w, "  output:\n%s\n", indent(lastLines(d.Output, 10)))
		}
	} else {
		fmt.Fprintf(t.w, "\nreached checkpoint k=%d of %d in %s\n", rep.To, rep.T, round(rep.Duration))
	}
	if v := res.Verify; v != nil {
		verdict := "PASSED"
		if !v.Passed {
			verdict = "FAILED"
		}
		fmt.Fprintf(t.w, "verifier %s (exit %d, %s)\n", verdict, v.ExitCode, round(v.Duration))
		if !v.Passed {
			fmt.Fprintln(t.w, indent(lastLines(v.Output, 10)))
		}
	}
	if res.Kept {
		fmt.Fprintf(t.w, "sandbox %s kept; enter it with:\n  %s\n", short(res.Sandbox), res.Enter)
	}
}

func round(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(100 * time.Microsecond).String()
	}
	return d.Round(10 * time.Millisecond).String()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func indent(s string) string { return "    " + strings.ReplaceAll(s, "\n", "\n    ") }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// exactArgs is cobra.ExactArgs with errors that map to the usage exit code.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError("%s: expected %d argument(s), got %d (see %s --help)", cmd.CommandPath(), n, len(args), cmd.CommandPath())
		}
		return nil
	}
}
