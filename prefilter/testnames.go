package prefilter

import (
	"path"
	"regexp"
	"strings"
)

// failurePatterns find what failed in a verifier's output, cheaply: each
// regexp's first group is one name. Ordered by how specific they are.
var failurePatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?m)^(?:rbx-verify: )?(?:FAILED|ERROR) (\S+)`),                 // pytest -rA / -rfE summary
	regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`),                                      // go test
	regexp.MustCompile(`(?m)^test (\S+) \.\.\. FAILED\s*$`),                            // cargo test
	regexp.MustCompile(`(?m)^\s+● (.+\S)\s*$`),                                         // jest
	regexp.MustCompile(`(?m)^rbx-verify: ((?:unit|acceptance)_test\.log): ALL_FAILED`), // DevEval logs
	regexp.MustCompile(`(?m)not installed in the image[^:\n]*: (.+)$`),                 // rbx's offline stand-ins
}

// maxNames bounds the names FailingTests returns.
const maxNames = 20

// FailingTests returns the names of the failed tests (or missing packages)
// a verifier's output reports, deduplicated, in order, at most 20. pytest
// node ids are shortened to file::test.
func FailingTests(output string) []string {
	var out []string
	seen := map[string]bool{}
	for _, re := range failurePatterns {
		for _, m := range re.FindAllStringSubmatch(output, -1) {
			name := shortName(m[1])
			if re == failurePatterns[5] {
				name = "missing " + name
			}
			if name == "" || seen[name] || strings.HasPrefix(name, "Console") {
				continue
			}
			seen[name] = true
			out = append(out, name)
			if len(out) == maxNames {
				return out
			}
		}
	}
	return out
}

// shortName drops the directories of a pytest node id's file.
func shortName(s string) string {
	s = strings.TrimSpace(s)
	if file, test, ok := strings.Cut(s, "::"); ok {
		return path.Base(file) + "::" + test
	}
	return s
}
