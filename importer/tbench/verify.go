package tbench

import (
	"fmt"
	"regexp"
	"strings"
)

// TestsDir is where the task's tests are copied at verify time, as
// terminal-bench's harness does ($TEST_DIR).
const TestsDir = "/tests"

// VerifyScript is where the generated verifier script is copied.
const VerifyScript = "/rbx-verifier/verify.sh"

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = shellQuote(s)
	}
	return out
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// PytestResult counts the outcomes in pytest's final summary line.
type PytestResult struct {
	Passed, Failed, Errors, Skipped int
}

// OK reports a run where tests passed and none failed or errored.
func (r PytestResult) OK() bool { return r.Passed > 0 && r.Failed == 0 && r.Errors == 0 }

var (
	pySummary = regexp.MustCompile(`(?m)^=+ (.*) =+\s*$`)
	pyCount   = regexp.MustCompile(`(\d+) (passed|failed|errors?|skipped)`)
)

// ParsePytest reads the last summary line of pytest output ("=== 2 passed,
// 1 failed in 0.1s ==="); ok is false when there is none.
func ParsePytest(out string) (r PytestResult, ok bool) {
	all := pySummary.FindAllStringSubmatch(out, -1)
	for i := len(all) - 1; i >= 0; i-- {
		line := all[i][1]
		counts := pyCount.FindAllStringSubmatch(line, -1)
		if len(counts) == 0 && !strings.Contains(line, "no tests ran") {
			continue
		}
		for _, c := range counts {
			var n int
			fmt.Sscan(c[1], &n)
			switch c[2] {
			case "passed":
				r.Passed = n
			case "failed":
				r.Failed = n
			case "error", "errors":
				r.Errors = n
			case "skipped":
				r.Skipped = n
			}
		}
		return r, true
	}
	return r, false
}
