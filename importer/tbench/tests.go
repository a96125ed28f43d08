package tbench

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// testScriptName is the test script's path under tests/ at verify time:
// terminal-bench copies run-tests.sh next to the tests; Harbor's is
// tests/test.sh.
func testScriptName(src *Source) string {
	if src.Layout == LayoutHarbor {
		return "test.sh"
	}
	return "run-tests.sh"
}

// rewriteTests rewrites the test script and every shell script under
// tests/ (run-tests.sh sources some, e.g. setup-uv-pytest.sh) line by line,
// recording each replacement, and returns the lines that have no offline
// equivalent (all of them).
func (c *Converted) rewriteTests() []Problem {
	src := c.Source
	var problems []Problem
	if src.Layout == LayoutTerminalBench {
		script, name := src.TestScript, src.TestScriptName
		if name == "" {
			script, name = defaultTestScript, "run-tests.sh"
			c.Replacements = append(c.Replacements, Replacement{File: "run-tests.sh", Line: 1, Original: "(no run-tests.sh)",
				Replacement: `python3 -m pytest "$TEST_DIR/test_outputs.py" -rA`, Why: "the task has no test script: terminal-bench's boilerplate with the image's pytest"})
		}
		text, reps, probs := rewriteTestScript(name, script)
		c.TestFiles["run-tests.sh"] = text
		c.Replacements, problems = append(c.Replacements, reps...), append(problems, probs...)
	}
	for _, rel := range shellScripts(filepath.Join(src.Dir, "tests")) {
		data, err := os.ReadFile(filepath.Join(src.Dir, "tests", rel))
		if err != nil {
			problems = append(problems, Problem{File: filepath.Join("tests", rel), Reason: "cannot read: " + err.Error()})
			continue
		}
		text, reps, probs := rewriteTestScript(filepath.Join("tests", rel), string(data))
		if len(reps) > 0 {
			c.TestFiles[filepath.ToSlash(rel)] = text
		}
		c.Replacements, problems = append(c.Replacements, reps...), append(problems, probs...)
	}
	return problems
}

// shellScripts lists the *.sh files under dir (relative, sorted).
func shellScripts(dir string) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".sh") {
			if rel, err := filepath.Rel(dir, p); err == nil {
				out = append(out, rel)
			}
		}
		return nil
	})
	sort.Strings(out)
	return out
}
