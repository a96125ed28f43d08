package importer

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/task"
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
// is a noop. A command the agent typed other input into (a REPL, a
// prompt) runs instead on the terminal, as in OpenHands' own pane: it
// and everything sent to it become keys steps (see interactive).
func resolveRunning(steps []trajectory.Step) error {
	typed := interactive(steps)
	running, onTerminal := "", false
	for i := range steps {
		s := &steps[i]
		out := recorded(*s)
		switch {
		case onTerminal && (s.Action == kindInput || s.Action == kindLeftRunning):
			if s.Action == kindInput && !ohLeftNote(out) {
				running, onTerminal = "", false // the program ended
			}
			replace(s, ohKeys(*s))
		case s.Action == kindLeftRunning && running == "" && typed[i]:
			running, onTerminal = fmt.Sprintf("run-%d", i), true
			replace(s, ohKeys(*s))
		case s.Action == trajectory.KindShell && running != "" && strings.Contains(out, ohNotExecuted),
			s.Action == kindLeftRunning && running != "":
			replace(s, noop(fmt.Sprintf("%q not executed: the previous command was still running", s.Command)))
		case s.Action == kindLeftRunning:
			running = fmt.Sprintf("run-%d", i)
			last, bound := ohLeftRunning(out)
			replace(s, bgStartStep(running, s.Command, last, bound))
		case s.Action != kindInput:
		case running == "":
			replace(s, noop(fmt.Sprintf("%q sent with no command running", s.Command)))
		case s.Command == "" && ohLeftNote(out):
			replace(s, noop("the agent waited; the command was still running"))
		case s.Command == "":
			replace(s, bgWaitStep(running, recordedCode(*s)))
			running = ""
		default:
			sig, ok := ohSignals[s.Command]
			if !ok {
				return fmt.Errorf("step %d: keystrokes %q typed into a running command that did not start on the terminal", i, s.Command)
			}
			replace(s, bgKillStep(running, sig))
			if !ohLeftNote(out) {
				running = "" // the interrupt ended it
			}
		}
	}
	return nil
}

// interactive marks the commands left running (by their step) that the
// agent typed input into, other than an interrupt or a wait: those run on
// the terminal.
func interactive(steps []trajectory.Step) map[int]bool {
	typed := map[int]bool{}
	start := -1
	for i, s := range steps {
		out := recorded(s)
		switch {
		case s.Action == kindLeftRunning && start < 0:
			start = i
		case s.Action != kindInput || start < 0:
		default:
			if _, signal := ohSignals[s.Command]; !signal && s.Command != "" {
				typed[start] = true
			}
			if !ohLeftNote(out) {
				start = -1 // it ended
			}
		}
	}
	return typed
}

// ohNote matches OpenHands' own lines in a command's observation.
var ohNote = regexp.MustCompile(`(?m)^\[(The command|Command finished|Current working directory|Python interpreter|Your command|Below is the output)[^\n]*\]\s*$`)

// ohKeys is a command left running, or what the agent sent to it, as a
// keys step on the terminal: the command or input and Enter (OpenHands
// presses it after input), an interrupt key alone, a wait as empty keys;
// the terminal it saw without OpenHands' notes, waited for as long as
// OpenHands did.
func ohKeys(s trajectory.Step) trajectory.Step {
	out := recorded(s)
	_, bound := ohLeftRunning(out)
	keys := s.Command
	if _, signal := ohSignals[keys]; !signal && keys != "" {
		keys += "\n"
	}
	k := trajectory.Step{Action: trajectory.KindKeys, Keys: keys, Duration: task.Duration(bound)}
	if screen := strings.TrimSpace(ohNote.ReplaceAllString(out, "")); screen != "" {
		k.Observation = &trajectory.Observation{Output: screen}
	}
	return k
}
