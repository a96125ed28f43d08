package replayer

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/trajectory"
)

const (
	// keysMargin is added to twice the recorded wait before a keys step
	// whose output never showed is a divergence.
	keysMargin = 5 * time.Second
	// keysQuiet is how long a step with no recorded output waits for the
	// terminal to stay silent.
	keysQuiet = 200 * time.Millisecond
	// keysPoll bounds how often a waiting step looks again when no output
	// comes (a wait is otherwise woken by output).
	keysPoll = 50 * time.Millisecond
)

// keysDivergence is a keys step whose recorded output the terminal did
// not show in time.
type keysDivergence struct{ want, got string }

func (e keysDivergence) Error() string { return "the terminal did not show the recorded output" }

// keys types s.Keys into the run's terminal (started on first use) and
// waits on the observation, not the clock: it returns as soon as the
// terminal shows what the recording saw (TermText of both; every line
// the agent saw, in order, in the output since the line typed on or on
// the screen) once output came since the keys and settled (quiet for
// keysQuiet), or, with no recorded output, once the terminal has been
// quiet for the recorded wait (between keysQuiet and a second). Past twice the recorded duration plus a margin (within
// the step limit) it is a keysDivergence. The output is what came since
// the line typed on. A terminal whose shell ended is a lost session.
func (run *Run) keys(ctx context.Context, s trajectory.Step) (outcome, error) {
	keys, err := run.expand("keys", s.Keys)
	if err != nil {
		return outcome{}, err
	}
	if run.term == nil {
		if run.term, err = startTerminal(ctx, run.sb, run.task.TerminalRows(), run.task.TerminalCols()); err != nil {
			return outcome{}, err
		}
	}
	t := run.term
	from := t.mark()
	defer t.look()
	sent := time.Now()
	if _, err := t.proc.Write(keyBytes(keys)); err != nil {
		return outcome{}, fmt.Errorf("%w: type into the terminal: %v", sandbox.ErrSessionLost, err)
	}
	want := ""
	if s.Observation != nil && run.ComparisonFor(s) != CompareIgnore {
		want = TermText(s.Observation.Output)
	}
	limit := min(2*s.Duration.D()+keysMargin, run.StepLimit())
	// Without a recorded output, quiet for as long as the agent waited,
	// up to a second: a command that pauses (a build's next stage) is not
	// taken for done at its first silence.
	quiet := max(keysQuiet, min(s.Duration.D(), time.Second))
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		last, ended, wait := t.state()
		switch {
		case ended != nil:
			res := run.termOutcome(t.view(from)).outcome
			res.lost = true
			if ended != io.EOF {
				return res, fmt.Errorf("%w: terminal: %v", sandbox.ErrSessionLost, ended)
			}
			return res, nil
		case want != "" && (last.After(sent) || keys == "") && time.Since(last) >= keysQuiet:
			// Output came since the keys (a wait types none) and settled:
			// the screen is the programs' answer, not what it showed
			// before them.
			if res := run.termOutcome(t.view(from)); shown(want, res.text) || shown(want, res.screen) {
				return res.outcome, nil
			}
		case want == "" && time.Since(last) >= quiet && time.Since(sent) >= quiet:
			return run.termOutcome(t.view(from)).outcome, nil
		}
		select {
		case <-ctx.Done():
			return run.termOutcome(t.view(from)).outcome, ctx.Err()
		case <-deadline.C:
			res := run.termOutcome(t.view(from))
			if want == "" {
				return res.outcome, nil
			}
			return res.outcome, keysDivergence{want: want, got: closer(want, res.text, res.screen)}
		case <-wait:
		case <-time.After(keysPoll):
		}
	}
}

// termView is a keys step's outcome with the texts it was made of: what
// was printed since the line typed on, and the screen (TermText both).
type termView struct {
	outcome
	text, screen string
}

// termOutcome is the outcome of a keys step that sees out printed and the
// screen: the printed text, or the screen when a full-screen program (an
// editor, a pager) drew it — what the agent sees is the screen, not the
// escapes' text — held to the task's output cap (its end kept: a
// terminal's latest lines are what matter).
func (run *Run) termOutcome(out, screen string) termView {
	v := termView{text: TermText(out), screen: TermText(screen)}
	v.outcome = outcome{output: v.text, bytes: int64(len(out))}
	if drawsScreen.MatchString(out) {
		v.output = v.screen
	}
	if limit := int(run.task.Limits.Output); limit > 0 && len(v.output) > limit {
		v.output, v.truncated = v.output[len(v.output)-limit:], true
	}
	return v
}

// closer is the one of what was printed and the screen that shows the
// first line the agent saw (the screen, for an editor or a pager), to
// diff against.
func closer(want, printed, screen string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(want), "\n")
	if !strings.Contains(printed, strings.TrimSpace(first)) && strings.Contains(screen, strings.TrimSpace(first)) {
		return screen
	}
	return printed
}

// drawsScreen matches the cursor addressing of a program that draws the
// whole screen (vi, less, top): CUP and HVP, and the alternate screen.
var drawsScreen = regexp.MustCompile(`\x1b\[\d*(;\d*)?[Hf]|\x1b\[\?(1049|1047|47)h`)
