package importer

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// ohNotExecuted is how OpenHands' bash session refuses a new command
// while the previous one still runs.
const ohNotExecuted = "is NOT executed"

// ohSignals are the keys an agent sends to interrupt a running command,
// and the signal each becomes on replay: its stdin there is /dev/null, so
// C-d (end of input) is a request to end, as TERM is.
var ohSignals = map[string]string{"C-c": "INT", "C-\\": "QUIT", "C-d": "TERM", "C-z": "TSTP"}

// ohRunning maps a run action that concerns a command left running
// (exit code -1: no new output for a while, or the agent's timeout):
// such a command starts in the background (see background.go); the
// agent's later empty command or is_input polls wait for it when the
// recording saw it end (expecting its exit code), and its C-c (C-d, C-z,
// C-\) interrupts it. Other keystrokes typed into the running program
// have no faithful equivalent without a terminal and are refused, naming
// the event. handled is false for a run the importer maps as usual.
func (b *builder) ohRunning(e ohEvent, o ohEvent, running *string) (trajectory.Step, bool, error) {
	if e.Action != "run" {
		return trajectory.Step{}, false, nil
	}
	cmd, _ := e.Args["command"].(string)
	cmd = strings.TrimSpace(cmd)
	input := truthy(e.Args["is_input"])
	code, coded := ohExitCode(o)
	stillRunning := coded && code == -1
	switch {
	case *running == "" && (input || cmd == ""):
		return noop(fmt.Sprintf("event %d: %q sent with no command running", e.ID, cmd)), true, nil
	case *running == "" && stillRunning:
		*running = fmt.Sprintf("oh-%d", e.ID)
		last, bound := ohLeftRunning(o.Content)
		return bgStartStep(*running, cmd, last, bound), true, nil
	case *running == "":
		return trajectory.Step{}, false, nil
	case !input && cmd != "":
		if strings.Contains(o.Content, ohNotExecuted) {
			return noop(fmt.Sprintf("event %d: %q not executed: the previous command was still running", e.ID, cmd)), true, nil
		}
		return trajectory.Step{}, false, nil
	case cmd == "":
		if !coded || stillRunning {
			return noop(fmt.Sprintf("event %d: the agent waited; the command was still running", e.ID)), true, nil
		}
		s := bgWaitStep(*running, &code)
		*running = ""
		return s, true, nil
	}
	sig, ok := ohSignals[cmd]
	if !ok {
		return trajectory.Step{}, true, fmt.Errorf("%w: event %d: keystrokes %q typed into a running command: rbx replays no terminal input yet",
			ErrUnfaithful, e.ID, cmd)
	}
	s := bgKillStep(*running, sig)
	if !stillRunning {
		*running = ""
	}
	return s, true, nil
}

// ohNoOutput is OpenHands' note on a command it stopped waiting for.
var ohNoOutput = regexp.MustCompile(`(?:no new output after|timed out after) (\d+(?:\.\d+)?) seconds`)

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
