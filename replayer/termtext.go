package replayer

import (
	"regexp"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// promptHost matches the user@host of a shell prompt: the host is the
// sandbox's own (a container's id), never the recording's.
var promptHost = regexp.MustCompile(`\b([a-z_][a-z0-9_-]*)@[A-Za-z0-9][A-Za-z0-9.-]*:`)

// timestamps are the clock times programs print in their logs: common
// log format ("06/Dec/2026:07:50:01" or with a space), ISO 8601, and C's
// asctime ("Sun Dec  6 07:50:01 2026"), to the second or finer.
var timestamps = regexp.MustCompile(`\d{2}/[A-Z][a-z]{2}/\d{4}[: ]\d{2}:\d{2}:\d{2}` +
	`|\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?` +
	`|(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2}(?: [A-Z]{3,4})?(?: \d{4})?`)

// TermText normalizes what a terminal showed for comparison: escape
// sequences (colours, cursor moves, titles) removed; a carriage return
// starts its line again, so only what was written last stays (a progress
// bar's last state); backspaces erase; a prompt's user@host keeps its
// user only; clock times (timestamps) read <time>; trailing blanks and
// blank lines at either end dropped.
func TermText(s string) string {
	s = ansi.Strip(strings.ReplaceAll(s, "\r\n", "\n"))
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		l = strings.TrimRight(l, "\r")
		if i := strings.LastIndexByte(l, '\r'); i >= 0 {
			l = l[i+1:]
		}
		l = backspaced(l)
		l = strings.Map(func(r rune) rune {
			if r < ' ' && r != '\t' {
				return -1 // BEL, NUL and the like
			}
			return r
		}, l)
		l = promptHost.ReplaceAllString(l, "$1@HOST:")
		l = timestamps.ReplaceAllString(l, "<time>")
		out = append(out, strings.TrimRight(l, " \t"))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	for len(out) > 0 && out[0] == "" {
		out = out[1:]
	}
	return strings.Join(out, "\n")
}

// backspaced applies the backspaces of l.
func backspaced(l string) string {
	if !strings.Contains(l, "\b") {
		return l
	}
	var r []rune
	for _, c := range l {
		if c == '\b' {
			if len(r) > 0 {
				r = r[:len(r)-1]
			}
			continue
		}
		r = append(r, c)
	}
	return string(r)
}

// shown reports whether every non-blank line of want appears in got, in
// order (blanks around each ignored): what the agent saw is on the
// terminal, whatever came between or after; a line may have more on its
// left after a blank (another prompt). The last line the agent saw
// may have been written on since (a progress bar, a line still being
// printed): it matches a line that starts with it, numbers aside.
func shown(want, got string) bool {
	var wl []string
	for _, w := range strings.Split(want, "\n") {
		if w = strings.TrimSpace(w); w != "" {
			wl = append(wl, w)
		}
	}
	gl := strings.Split(got, "\n")
	j := 0
	for n, w := range wl {
		// A line may be longer on the left: the same command after
		// another prompt (a virtualenv's, a shell without user@host).
		match := func(g string) bool { return g == w || len(w) >= 4 && strings.HasSuffix(g, " "+w) }
		if mw := numbers.ReplaceAllString(w, "0"); n == len(wl)-1 && len(strings.Trim(mw, "0 .,:%/")) >= 3 {
			whole := match
			match = func(g string) bool { return whole(g) || strings.HasPrefix(numbers.ReplaceAllString(g, "0"), mw) }
		}
		for j < len(gl) && !match(strings.TrimSpace(gl[j])) {
			j++
		}
		if j == len(gl) {
			return false
		}
		j++
	}
	return true
}

// numbers are runs of digits.
var numbers = regexp.MustCompile(`[0-9]+`)
