package tbench

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// copyMap is one COPY of the build context into the image: Src (relative
// to the task folder, "." for all of it) lands at Dst (absolute).
type copyMap struct{ Src, Dst string }

// copyOf parses a plain `COPY src... dst` (no --from: a stage's files are
// not in the build context). JSON-form and multi-source COPY with a
// non-directory destination are kept as far as they are unambiguous.
func copyOf(text, workdir string) []copyMap {
	fields := strings.Fields(text)[1:]
	for len(fields) > 0 && strings.HasPrefix(fields[0], "--") {
		if strings.HasPrefix(fields[0], "--from") {
			return nil
		}
		fields = fields[1:]
	}
	if len(fields) < 2 {
		return nil
	}
	dst := strings.Trim(fields[len(fields)-1], `"`)
	if !path.IsAbs(dst) {
		dst = path.Join(orRoot(workdir), dst)
	}
	var out []copyMap
	for _, s := range fields[:len(fields)-1] {
		out = append(out, copyMap{Src: path.Clean(strings.Trim(s, `"`)), Dst: path.Clean(dst)})
	}
	return out
}

// invoked matches a script run by a test script: `sh F.sh`, `bash F.sh`,
// `source F.sh`, `. F.sh`, `./F.sh`, or an absolute path to one, in a
// command position.
var invoked = regexp.MustCompile(cmdPos + `(?:(?:sh|bash|source|\.)\s+(?:-\S+\s+)*)?((?:\.{0,2}/)?[\w./-]+\.sh)\b`)

// scanInvoked finds the scripts a test script runs that the task's image
// holds from its build context (through COPY), and reports their lines
// that need the network. They run as written at verify time (they live in
// the image, and an agent may change them), so nothing is replaced there:
// a line with no offline way is a task fault named at import, instead of a
// verifier failure later. Scripts under tests/ are rewritten separately.
func (c *Converted) scanInvoked(file, script, workdir string, copies []copyMap) []Problem {
	var problems []Problem
	seen := map[string]bool{}
	for i, l := range strings.Split(script, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		for _, m := range invoked.FindAllStringSubmatch(l, -1) {
			target := m[2]
			if strings.Contains(target, "$") || strings.HasPrefix(target, StandinDir) {
				continue
			}
			if !path.IsAbs(target) {
				target = path.Join(orRoot(workdir), target)
			}
			host, ok := c.contextFile(target, copies)
			if !ok || seen[host] {
				continue
			}
			seen[host] = true
			data, err := os.ReadFile(filepath.Join(c.Source.Dir, host))
			if err != nil {
				continue
			}
			via := fmt.Sprintf("%s (run by %s:%d)", host, file, i+1)
			problems = append(problems, scanNetworkLines(via, string(data))...)
		}
	}
	return problems
}

// contextFile maps an absolute path in the image to the build-context file
// a COPY put there (the last COPY wins, as in the image).
func (c *Converted) contextFile(target string, copies []copyMap) (string, bool) {
	for i := len(copies) - 1; i >= 0; i-- {
		cp := copies[i]
		rel := ""
		switch {
		case target == cp.Dst:
			rel = ""
		case strings.HasPrefix(target, cp.Dst+"/") || cp.Dst == "/":
			rel = strings.TrimPrefix(strings.TrimPrefix(target, cp.Dst), "/")
		default:
			continue
		}
		host := path.Join(cp.Src, rel)
		if strings.HasPrefix(host, "..") {
			continue
		}
		if st, err := os.Stat(filepath.Join(c.Source.Dir, host)); err == nil && !st.IsDir() {
			return host, true
		}
		// `COPY file.sh /dst/file.sh` or `COPY file.sh /dst/`.
		if rel == "" || path.Base(cp.Src) == path.Base(target) {
			if st, err := os.Stat(filepath.Join(c.Source.Dir, cp.Src)); err == nil && !st.IsDir() {
				return cp.Src, true
			}
		}
	}
	return "", false
}

// scanNetworkLines reports the live lines of a script that match a test
// rule with no offline equivalent.
func scanNetworkLines(file, script string) []Problem {
	lines := strings.Split(script, "\n")
	dead := deadLines(lines)
	var out []Problem
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if dead[i] || t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		for _, r := range testRules {
			if !r.re.MatchString(l) {
				continue
			}
			if r.problem != "" && !onlyLocalURLs(r, l) {
				out = append(out, Problem{File: file, Line: i + 1, Text: l, Reason: r.problem})
			}
			break
		}
	}
	return out
}

// onlyLocalURLs: a "downloads from the network" rule matched only URLs on
// loopback or the task's own services, which need no network.
func onlyLocalURLs(r lineRule, l string) bool {
	return strings.Contains(r.problem, "network") && localURL.MatchString(l) &&
		!strings.Contains(localURL.ReplaceAllString(l, ""), "://")
}

// scanTestInvocations scans the scripts that the test script and the
// scripts under tests/ run from the image (see scanInvoked).
func (c *Converted) scanTestInvocations(workdir string, copies []copyMap) []Problem {
	if len(copies) == 0 {
		return nil
	}
	var problems []Problem
	if c.Source.Layout == LayoutTerminalBench && c.Source.TestScriptName != "" {
		problems = append(problems, c.scanInvoked(c.Source.TestScriptName, c.Source.TestScript, workdir, copies)...)
	}
	for _, rel := range shellScripts(filepath.Join(c.Source.Dir, "tests")) {
		data, err := os.ReadFile(filepath.Join(c.Source.Dir, "tests", rel))
		if err == nil {
			problems = append(problems, c.scanInvoked(filepath.Join("tests", rel), string(data), workdir, copies)...)
		}
	}
	return problems
}
