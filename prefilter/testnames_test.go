package prefilter

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFailingTests(t *testing.T) {
	tests := []struct {
		name, output string
		want         []string
	}{
		{"pytest", "=== short test summary info ===\nPASSED ../tests/test_outputs.py::test_a\nFAILED ../tests/test_outputs.py::test_b - AssertionError: x\nERROR tests/t.py::test_c\n", []string{"test_outputs.py::test_b", "t.py::test_c"}},
		{"rbx-verify lines deduplicated", "FAILED a.py::t1 - x\nrbx-verify: FAILED a.py::t1 - x\n", []string{"a.py::t1"}},
		{"go test", "=== RUN TestX\n--- FAIL: TestX (0.00s)\n    --- FAIL: TestX/sub (0.00s)\nFAIL\n", []string{"TestX", "TestX/sub"}},
		{"cargo", "test tests::adds ... ok\ntest tests::subtracts ... FAILED\n", []string{"tests::subtracts"}},
		{"jest", "  ● School › adds a student\n\n    expect(received)\n  ● Console\n", []string{"School › adds a student"}},
		{"deveval", "rbx-verify: unit_test.log: ALL_FAILED; its last lines:\nrbx-verify:   make: not found\n", []string{"unit_test.log"}},
		{"missing packages", "rbx-offline: not installed in the image (nothing can be downloaded at test time): pandas, numpy\n", []string{"missing pandas, numpy"}},
		{"nothing", "verifier exited 1\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, FailingTests(tt.output))
		})
	}
}

func TestFailingTestsBounded(t *testing.T) {
	var b strings.Builder
	for i := range 50 {
		b.WriteString("FAILED t.py::test_" + strings.Repeat("x", i+1) + "\n")
	}
	assert.Len(t, FailingTests(b.String()), maxNames)
}

func FuzzFailingTests(f *testing.F) {
	f.Add("FAILED a.py::t - x\n--- FAIL: TestX\n")
	f.Add("test a ... FAILED\n  ● a › b\n")
	f.Fuzz(func(t *testing.T, s string) {
		names := FailingTests(s)
		require.LessOrEqual(t, len(names), maxNames)
		seen := map[string]bool{}
		for _, n := range names {
			require.NotEmpty(t, n)
			require.False(t, seen[n], "duplicate %q", n)
			seen[n] = true
		}
	})
}

func TestTableNamesFailingTests(t *testing.T) {
	rep := &Report{Results: []Result{{Key: Key{File: "a.json"}, Status: StatusRejected, Reason: ReasonVerifyFailed,
		Detail: "verifier exited 1", Failure: &Failure{Message: "verifier exited 1",
			Output: "FAILED x.py::test_one - boom\nFAILED x.py::test_two\nFAILED x.py::test_three\nFAILED x.py::test_four\n"}}}}
	var buf bytes.Buffer
	require.NoError(t, WriteTable(&buf, rep))
	assert.Contains(t, buf.String(), "verifier exited 1: x.py::test_one, x.py::test_two, x.py::test_three (+1)")
}
