package importer

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHarborResult: the tool's own result and failure, from Harbor's
// Claude Code converter's metadata or, without it, from its decorated
// content.
func TestHarborResult(t *testing.T) {
	raw := func(content any, isErr bool) map[string]any {
		return map[string]any{"is_error": isErr, "raw_tool_result": map[string]any{"type": "tool_result", "content": content, "is_error": isErr}}
	}
	tests := []struct {
		name    string
		r       ATIFResult
		want    string
		failure bool
	}{
		{"plain", ATIFResult{Content: "a\nb"}, "a\nb", false},
		{"flagged", ATIFResult{Content: "Exit code 1", IsError: true}, "Exit code 1", true},
		{"metadata", ATIFResult{Content: "ocaml\n\n[stdout]\nocaml", Extra: raw("ocaml\n", false)}, "ocaml\n", false},
		{"metadata, failed", ATIFResult{Content: "x\n\n[error] tool reported failure", Extra: raw("Exit code 2\nls: no", true)}, "Exit code 2\nls: no", true},
		{"metadata, content blocks", ATIFResult{Content: "…", Extra: raw([]any{map[string]any{"type": "text", "text": "one"}, map[string]any{"type": "text", "text": "two"}}, false)}, "one\ntwo", false},
		{"decorated", ATIFResult{Content: "ocaml\n\n[stdout]\nocaml\n[metadata] {\"noOutputExpected\": false}"}, "ocaml", false},
		{"decorated failure", ATIFResult{Content: "Exit code 2\nls: cannot access\n\n[error] tool reported failure"}, "Exit code 2\nls: cannot access", true},
		{"decorations only", ATIFResult{Content: "[metadata] {\"filenames\": []}"}, "", false},
		{"a decoration-like line inside output", ATIFResult{Content: "x\n[stdout] is a word"}, "x\n[stdout] is a word", false},
		{"status failed", ATIFResult{Content: "boom", Extra: map[string]any{"status": "failed", "exit_code": 2.0}}, "boom", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, failed := tc.r.output()
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.failure, failed)
		})
	}
}

func TestATIFResultExitCode(t *testing.T) {
	assert.Nil(t, ATIFResult{}.exitCode())
	for _, k := range []string{"exit_code", "exitCode", "return_code", "returncode"} {
		c := ATIFResult{Extra: map[string]any{k: 3.0}}.exitCode()
		if assert.NotNil(t, c, k) {
			assert.Equal(t, 3, *c)
		}
	}
}
