package importer

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// A command OpenHands' bash session left running (its exit code -1, the
// observation ending in "[The command has no new output after 30
// seconds. …]" or "[… timed out after N seconds …]") and what the agent
// then sent to it (is_input keys, an empty command to wait) are marked by
// the mapper with these importer-internal actions; resolveRunning turns
// them into steps once the results are attached, whatever the format
// (OpenHands' events, its tool calls in chat or ATIF files).
const (
	kindLeftRunning trajectory.Kind = "left_running"
	kindInput       trajectory.Kind = "input"
)

// ohNotExecuted is how OpenHands' bash session refuses a new command
// while the previous one still runs.
const ohNotExecuted = "is NOT executed"

// ohSignals are the keys an agent sends to interrupt a running command,
// and the signal each becomes on replay: its stdin there is /dev/null, so
// C-d (end of input) is a request to end, as TERM is.
var ohSignals = map[string]string{"C-c": "INT", "C-\\": "QUIT", "C-d": "TERM", "C-z": "TSTP"}

// ohNoOutput is OpenHands' note on a command it stopped waiting for.
var ohNoOutput = regexp.MustCompile(`(?:no new output after|timed out after) (\d+(?:\.\d+)?) seconds`)

// ohLeftNote reports whether output ends with OpenHands' note that it
// stopped waiting for the command (which runs on).
func ohLeftNote(output string) bool {
	last := strings.TrimSpace(output)
	if i := strings.LastIndexByte(last, '\n'); i >= 0 {
		last = last[i+1:]
	}
	return strings.HasPrefix(last, "[") && strings.HasSuffix(last, "]") && ohNoOutput.MatchString(last)
}

// ohLeftRunning reads the observation of a command left running: the
// last line it printed (OpenHands' own bracketed notes aside) and how long
// OpenHands waited for more (30 s unless it says).
func ohLeftRunning(content string) (string, time.Duration) {
	bound := 30 * time.Second
	if m := ohNoOutput.FindStringSubmatch(content); m != nil {
		if f, err := strconv.ParseFloat(m[1], 64); err == nil {
			bound = time.Duration(f * float64(time.Second))
		}
	}
	lines := strings.Split(content, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]") {
			continue
		}
		return l, bound
	}
	return "", bound
}

// resolveRunning maps commands left running and what was sent to them:
// such a command starts in the background (see background.go); a later
// empty command that saw it end waits for it (expecting its exit code,
// when recorded), one that saw it running is a noop; C-c (C-d, C-z, C-\)
// interrupts it; a new command the session refused ("is NOT executed")
// is a noop. Other keystrokes typed into the running program have no
// faithful equivalent without a terminal: an error naming the step.
func resolveRunning(steps []trajectory.Step) error {
	running := ""
	for i := range steps {
		s := &steps[i]
		out := ""
		if s.Observation != nil {
			out = s.Observation.Output
		}
		base := trajectory.Step{Tokens: s.Tokens, Messages: s.Messages}
		switch {
		case s.Action == trajectory.KindShell && running != "" && strings.Contains(out, ohNotExecuted):
			*s = noop(fmt.Sprintf("%q not executed: the previous command was still running", s.Command))
		case s.Action == kindLeftRunning && running != "":
			*s = noop(fmt.Sprintf("%q not executed: the previous command was still running", s.Command))
		case s.Action == kindLeftRunning:
			running = fmt.Sprintf("run-%d", i)
			last, bound := ohLeftRunning(out)
			*s = bgStartStep(running, s.Command, last, bound)
		case s.Action != kindInput:
			continue
		case running == "":
			*s = noop(fmt.Sprintf("%q sent with no command running", s.Command))
		case s.Command == "":
			if ohLeftNote(out) {
				*s = noop("the agent waited; the command was still running")
				break
			}
			var code *int
			if s.Observation != nil {
				code = s.Observation.ExitCode
			}
			*s, running = bgWaitStep(running, code), ""
		default:
			sig, ok := ohSignals[s.Command]
			if !ok {
				return fmt.Errorf("step %d: keystrokes %q typed into a running command: rbx replays no terminal input yet", i, s.Command)
			}
			still := ohLeftNote(out)
			*s = bgKillStep(running, sig)
			if !still {
				running = ""
			}
		}
		s.Tokens, s.Messages = base.Tokens, base.Messages
	}
	return nil
}
