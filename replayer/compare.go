package replayer

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// Comparison is how recorded and live outputs are compared. Exit codes are
// always compared when recorded.
type Comparison string

// Comparisons.
const (
	// CompareExact requires byte-identical output.
	CompareExact Comparison = "exact"
	// CompareNormalized compares after Normalize: line endings, ANSI colour,
	// trailing blanks, timestamps, durations and hex ids do not count.
	CompareNormalized Comparison = "normalized"
	// CompareIgnore compares no output.
	CompareIgnore Comparison = "ignore"
)

// Valid reports whether p is a known comparison.
func (p Comparison) Valid() bool {
	return p == CompareExact || p == CompareNormalized || p == CompareIgnore
}

// Equal compares recorded and live output under p.
func Equal(p Comparison, recorded, live string) bool {
	switch p {
	case CompareIgnore:
		return true
	case CompareExact:
		return recorded == live
	}
	return Normalize(recorded) == Normalize(live)
}

var (
	ansiRE      = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)
	timestampRE = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?`)
	clockRE     = regexp.MustCompile(`\b\d{1,2}:\d{2}:\d{2}(\.\d+)?\b`)
	durationRE  = regexp.MustCompile(`\b\d+(\.\d+)?\s?(ns|µs|us|ms|s|sec|secs|seconds)\b`)
	hexRE       = regexp.MustCompile(`\b[0-9a-f]{12,64}\b`)
)

// Normalize rewrites output so that incidental differences vanish: CRLF,
// ANSI escapes, trailing whitespace and blank lines at the end, ISO
// timestamps, wall-clock times, durations ("0.003s") and long hex ids
// (container ids, hashes) become placeholders.
func Normalize(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = ansiRE.ReplaceAllString(s, "")
	s = timestampRE.ReplaceAllString(s, "<time>")
	s = clockRE.ReplaceAllString(s, "<time>")
	s = durationRE.ReplaceAllString(s, "<duration>")
	s = hexRE.ReplaceAllString(s, "<hex>")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// Summary is a one-line description of a step for reports.
func Summary(s trajectory.Step) string {
	switch s.Action {
	case trajectory.KindShell:
		return "shell " + oneLine(s.Command, 60)
	case trajectory.KindHTTP:
		return "http " + s.Method + " " + oneLine(s.URL, 60)
	case trajectory.KindNoop:
		return "noop " + oneLine(s.Note, 60)
	}
	return string(s.Action) + " " + s.Path
}

func oneLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if utf8.RuneCountInString(s) > n {
		r := []rune(s)
		s = string(r[:n]) + "…"
	}
	return s
}

// excerpt cuts s to at most n bytes on a rune boundary, keeping the end
// (where errors usually are) when it has to cut.
func excerpt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := s[len(s)-n:]
	for !utf8.ValidString(cut) && len(cut) > 0 {
		cut = cut[1:]
	}
	return "…" + cut
}

func quoteExcerpt(s string) string { return strconv.Quote(excerpt(s, 200)) }
