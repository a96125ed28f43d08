package tbench

import (
	"fmt"
	"regexp"
	"strings"
)

// Replacement is one line of a test script that rbx runs differently from
// the benchmark because the original needs the network. Every other line
// runs as written.
type Replacement struct {
	File        string `json:"file"`
	Line        int    `json:"line"`
	Original    string `json:"original"`
	Replacement string `json:"replacement"`
	Why         string `json:"why"`
}

func (r Replacement) String() string {
	return fmt.Sprintf("%s:%d: %s\n    → %s  (%s)", r.File, r.Line, strings.TrimSpace(r.Original), strings.TrimSpace(r.Replacement), r.Why)
}

// StandinDir is where the verifier's stand-ins (uv, rbx-offline) are copied
// at verify time, with the generated verifier.
const StandinDir = "/rbx-verifier/bin"

const offlineTool = StandinDir + "/rbx-offline"

// lineRule rewrites the matches of re in a line (repl as in
// regexp.ReplaceAllString) or, with problem set, marks the line as needing
// the network.
type lineRule struct {
	re      *regexp.Regexp
	repl    string
	why     string
	problem string
}

// cmdPos is a command position: line start, after an operator, or after a
// reserved word that starts a command.
const cmdPos = `(^\s*|[;&|(]\s*|\b(?:then|do|else|if|while|until|!)\s+)`

// testRules are tried in order on every live line of a test script; the
// first that matches decides. Docs: docs/terminal-bench.md.
var testRules = []lineRule{
	{re: regexp.MustCompile(`\b(curl|wget)\b[^|]*astral\.sh/uv[^|]*\|\s*(ba)?sh\b`),
		repl: offlineTool + ` install-uv`,
		why:  "installs rbx's uv stand-in (over the local python3 and pytest) and $HOME/.local/bin/env instead of downloading uv"},
	{re: regexp.MustCompile(cmdPos + `(?:sudo\s+)?apt(?:-get)?\s+((?:-\S+\s+)*)(update|upgrade|install)\b`),
		repl: `${1}` + offlineTool + ` apt-get ${2}${3}`,
		why:  "apt at test time: update/upgrade are skipped, install checks each package is already in the image and fails naming what is not"},
	{re: regexp.MustCompile(cmdPos + `(?:python3?(?:\.\d+)?\s+-m\s+pip|pip3?(?:\.\d+)?)\s+install\b`),
		repl: `${1}` + offlineTool + ` pip install`,
		why:  "pip install checks that every requirement is installed (or provided by a stand-in) and fails naming what is not, instead of downloading from PyPI"},
	{re: regexp.MustCompile(cmdPos + `uvx\b`),
		repl: `${1}` + StandinDir + `/uv tool run`,
		why:  "uvx runs through rbx's uv stand-in over the local python3 and pytest"},
	{re: regexp.MustCompile(cmdPos + `uv\s+(init|add|remove|sync|run|venv|pip|tool|python|lock|--version)\b`),
		repl: `${1}` + StandinDir + `/uv ${2}`,
		why:  "uv runs through rbx's uv stand-in over the local python3 and pytest"},
	{re: regexp.MustCompile(cmdPos + `git\s+clone\b([^;&|]*?)(https?://|git@)[^\s;&|]*googletest(\.git)?\b`),
		repl: `${1}` + offlineTool + ` git-clone${2}googletest`,
		why:  "copies Debian's googletest sources (/usr/src/googletest, package googletest) instead of cloning GitHub"},
	{re: regexp.MustCompile(cmdPos + `npm\s+(install|i|ci)((?:\s+-[^g\s]\S*)*)\s*($|[;&|)])`),
		repl: `${1}` + offlineTool + ` npm-install${4}`,
		why:  "npm install checks that every package.json dependency is installed (node_modules or Debian's /usr/share/nodejs) and links it, failing naming what is not"},
	{re: regexp.MustCompile(cmdPos + `cargo\s+add\b`),
		repl: `${1}` + offlineTool + ` cargo-add`,
		why:  "cargo add resolves the crate offline only (crates.io is not reachable); a crate the image has no offline source for is not added and the line fails naming it"},
	{re: regexp.MustCompile(`\badd-apt-repository\b`), problem: "PPAs are not reachable"},
	{re: regexp.MustCompile(cmdPos + `(?:sh\s+|bash\s+)?\./gradlew\b|\bgradle\s+\S*(test|build)`), problem: "Gradle downloads its distribution and Maven dependencies, which are not reachable"},
	{re: regexp.MustCompile(`\b(curl|wget)\b[^\n]*\b(https?|ftp)://`), problem: "downloads from the network"},
	{re: regexp.MustCompile(`\bgit\s+clone\b[^\n]*(https?://|git@)`), problem: "clones from the network (only googletest has a local source)"},
	{re: regexp.MustCompile(`\b(npm\s+(install|i|ci|add)\s+[^\s;&|)]|yarn\s+add|pnpm\s+(add|install)|cargo\s+install|go\s+install)\b`), problem: "downloads packages from a registry"},
	{re: regexp.MustCompile(`\bconda\s+install\b`), problem: "conda channels are not reachable"},
}

// rewriteTestScript keeps every line of a test script and replaces, one by
// one, the live lines that need the network by offline equivalents. Lines
// that have none are problems; all of them are reported. Lines in branches
// that can never run (if [ "go" = "java" ]) are left as they are.
func rewriteTestScript(file, script string) (string, []Replacement, []Problem) {
	lines := strings.Split(script, "\n")
	dead := deadLines(lines)
	var reps []Replacement
	var problems []Problem
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if dead[i] || t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		for _, r := range testRules {
			if !r.re.MatchString(l) {
				continue
			}
			if r.problem != "" {
				if onlyLocalURLs(r, l) {
					break
				}
				problems = append(problems, Problem{File: file, Line: i + 1, Text: l, Reason: r.problem})
				break
			}
			nl := r.re.ReplaceAllString(l, r.repl)
			reps = append(reps, Replacement{File: file, Line: i + 1, Original: l, Replacement: nl, Why: r.why})
			lines[i] = nl
			break
		}
	}
	return strings.Join(lines, "\n"), reps, problems
}

var (
	ifLiteral = regexp.MustCompile(`^(if|elif)\s+\[\[?\s+"?([^"\s$\x60]*)"?\s+==?\s+"?([^"\s$\x60]*)"?\s+\]\]?\s*;\s*then$`)
	ifOpen    = regexp.MustCompile(`^if\b`)
	oneLineIf = regexp.MustCompile(`\bfi\s*(;|$|#|\)|&|\|)`)
)

// ifFrame is one open if block: whether the branch being read is dead and
// whether an earlier branch certainly ran.
type ifFrame struct{ dead, taken, known bool }

// deadLines marks the lines of branches whose condition compares two
// different literal strings (generated scripts hard-code their language
// this way), so that what they would download is neither replaced nor
// reported. Any other condition keeps its branches live.
func deadLines(lines []string) []bool {
	dead := make([]bool, len(lines))
	var stack []ifFrame
	outerDead := func() bool {
		for _, f := range stack {
			if f.dead {
				return true
			}
		}
		return false
	}
	for i, l := range lines {
		t := strings.TrimSpace(l)
		m := ifLiteral.FindStringSubmatch(t)
		switch {
		case m != nil && m[1] == "if":
			stack = append(stack, ifFrame{dead: m[2] != m[3], taken: m[2] == m[3], known: true})
			continue
		case ifOpen.MatchString(t) && !oneLineIf.MatchString(t):
			stack = append(stack, ifFrame{})
		case len(stack) > 0 && (m != nil || strings.HasPrefix(t, "elif ") || t == "else" || strings.HasPrefix(t, "else ")):
			f := &stack[len(stack)-1]
			switch {
			case !f.known:
			case f.taken:
				f.dead = true
			case m != nil:
				f.dead, f.taken = m[2] != m[3], m[2] == m[3]
			case strings.HasPrefix(t, "elif"):
				f.known, f.dead = false, false
			default: // else after only false literal branches
				f.dead, f.taken = false, true
			}
			continue
		case len(stack) > 0 && (t == "fi" || strings.HasPrefix(t, "fi ") || strings.HasPrefix(t, "fi;")):
			stack = stack[:len(stack)-1]
			continue
		}
		dead[i] = outerDead()
	}
	return dead
}
