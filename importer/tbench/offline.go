package tbench

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// ErrNotOffline marks a task that needs the network to build or solve:
// PyPI, PPAs and other downloads are not reachable (the Debian mirror is,
// inside image builds).
var ErrNotOffline = errors.New("not buildable offline")

// Problem is one line that needs the network.
type Problem struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Text   string `json:"text"`
	Reason string `json:"reason"`
}

func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", p.File, p.Line, p.Reason, strings.TrimSpace(firstLine(p.Text)))
}

// OfflineError lists every line of a task that needs the network.
type OfflineError struct {
	Task     string
	Problems []Problem
}

func (e *OfflineError) Error() string {
	var lines []string
	for _, p := range e.Problems {
		lines = append(lines, p.String())
	}
	return fmt.Sprintf("task %s is %s:\n  %s", e.Task, ErrNotOffline, strings.Join(lines, "\n  "))
}

// Unwrap makes errors.Is(err, ErrNotOffline) true.
func (e *OfflineError) Unwrap() error { return ErrNotOffline }

var networkRules = []struct {
	re     *regexp.Regexp
	reason string
}{
	{regexp.MustCompile(`\b(pip3?|python3?\s+-m\s+pip)\s+install\b`), "pip install needs PyPI, which is not reachable"},
	{regexp.MustCompile(`(^|[\s;&|(])(uvx|uv\s+(pip|add|sync|run|tool|venv|init|python))\b`), "uv downloads Python packages, which is not reachable"},
	{regexp.MustCompile(`\badd-apt-repository\b`), "PPAs are not reachable"},
	{regexp.MustCompile(`\b(curl|wget)\b[^\n]*\b(https?|ftp)://`), "downloads from the network"},
	{regexp.MustCompile(`\bgit\s+clone\b[^\n]*(https?://|git@)`), "clones from the network"},
	{regexp.MustCompile(`\b(npm\s+(install|i|ci)|yarn\s+add|pnpm\s+(add|install)|cargo\s+install|go\s+(install|get))\b`), "downloads packages from a registry"},
	{regexp.MustCompile(`\bconda\s+install\b`), "conda channels are not reachable"},
}

// localURL matches downloads that stay on the machine.
var localURL = regexp.MustCompile(`(https?|ftp)://(localhost|127\.0\.0\.1|\[::1\])`)

// scanOffline reports every line of text (file name, first line number)
// that needs the network: each rule's every match, one problem per line and
// rule, so a RUN with three downloads names all three.
func scanOffline(file string, line int, text string) []Problem {
	var out []Problem
	for _, r := range networkRules {
		seen := map[int]bool{}
		for _, loc := range r.re.FindAllStringIndex(text, -1) {
			n := line + strings.Count(text[:loc[0]], "\n")
			l := lineAt(text, loc[0])
			if seen[n] || strings.Contains(r.reason, "network") && localURL.MatchString(l) && !strings.Contains(localURL.ReplaceAllString(l, ""), "://") {
				continue
			}
			seen[n] = true
			out = append(out, Problem{File: file, Line: n, Text: l, Reason: r.reason})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

func lineAt(s string, i int) string {
	start := strings.LastIndexByte(s[:i], '\n') + 1
	end := strings.IndexByte(s[i:], '\n')
	if end < 0 {
		return s[start:]
	}
	return s[start : i+end]
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
