package importer

import (
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
