package importer

import (
	"encoding/json"
	"regexp"
	"strings"
)

// Terminus (terminal-bench's and Harbor's reference agent) types into a
// tmux pane: each call is bash_command {keystrokes, duration}, and the
// turn's one observation is the terminal after all its calls, with
// Terminus' own words around it. terminusScreen keeps what the terminal
// showed.

// terminusHeaders start what Terminus shows of the terminal.
var terminusHeaders = []string{"New Terminal Output:", "Current Terminal Screen:", "Current terminal state:"}

// terminusLimited is the line Terminus puts where it cut a long output.
var terminusLimited = regexp.MustCompile(`(?m)^\[\.\.\. output limited to \d+ bytes; \d+ interior bytes omitted \.\.\.\]$`)

// terminusWarnings starts an observation that reports the previous
// response's parse warnings before the terminal.
const terminusWarnings = "Previous response had warnings:"

// terminusScreen is the terminal text of a Terminus observation: after
// its header (the last one), without the warnings before it, the
// completion question after it, or the mark where it cut a long output
// (replay matches the lines on either side).
func terminusScreen(obs string) string {
	body := obs
	at := -1
	for _, h := range terminusHeaders {
		if i := strings.LastIndex(body, h); i > at {
			at = i + len(h)
		}
	}
	switch {
	case at >= 0:
		body = body[at:]
	case strings.HasPrefix(body, terminusWarnings):
		if _, rest, ok := strings.Cut(body, "\n\n"); ok {
			body = rest
		}
	}
	if i := strings.Index(body, "\n\nAre you sure you want to mark the task as complete?"); i >= 0 {
		body = body[:i]
	}
	body = terminusLimited.ReplaceAllString(body, "")
	return strings.Trim(body, "\n")
}

// terminusReply is a Terminus turn as its model writes it (JSON, perhaps
// with text around): Terminus-2's commands with a duration, Terminus-1's
// with is_blocking and timeout_sec.
type terminusReply struct {
	Commands []struct {
		Keystrokes *string  `json:"keystrokes"`
		Duration   *float64 `json:"duration"`
		TimeoutSec *float64 `json:"timeout_sec"`
	} `json:"commands"`
	TaskComplete bool `json:"task_complete"`
	IsComplete   bool `json:"is_task_complete"`
}

// terminusTextCalls reads the calls of a Terminus turn in a chat log (its
// messages as terminal-bench's and Harbor's Terminus keep them, without
// tool calls): each command's keystrokes and wait, then the task marked
// complete; ok is false for a message that is no Terminus reply.
func terminusTextCalls(m *chatMessage) ([]call, bool) {
	t := text(m.Content)
	start, end := strings.IndexByte(t, '{'), strings.LastIndexByte(t, '}')
	if start < 0 || end < start {
		return nil, false
	}
	var r terminusReply
	if json.Unmarshal([]byte(t[start:end+1]), &r) != nil {
		return nil, false
	}
	var calls []call
	for _, c := range r.Commands {
		if c.Keystrokes == nil {
			return nil, false
		}
		args := map[string]any{"keystrokes": *c.Keystrokes}
		switch {
		case c.Duration != nil:
			args["duration"] = *c.Duration
		case c.TimeoutSec != nil:
			args["duration"] = *c.TimeoutSec
		}
		calls = append(calls, call{Name: "bash_command", Args: args})
	}
	if r.TaskComplete || r.IsComplete {
		calls = append(calls, call{Name: "mark_task_complete", Args: map[string]any{}})
	}
	return calls, len(r.Commands) > 0
}
