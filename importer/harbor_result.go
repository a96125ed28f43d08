package importer

import (
	"strings"
)

// harborDecorations start what Harbor's Claude Code converter appends to
// a tool's result ("\n\n" then its tool_use_result fields, one per line):
// not the tool's output, which replay compares.
var harborDecorations = []string{"[stdout]\n", "[stderr]\n", "[exit_code] ", "[interrupted] ", "[is_image] ", "[metadata] "}

// harborError is the line Harbor's converter appends to a failed tool's
// result.
const harborError = "[error] tool reported failure"

// output is what the tool returned to the agent and whether it failed.
// Harbor's Claude Code converter keeps the tool's own result in the
// result's metadata (raw_tool_result: the tool_result block the model
// read, with its is_error) and writes as content that text followed by
// its decorations; rbx reads the tool's own result, else strips the
// decorations from the content.
func (r ATIFResult) output() (string, bool) {
	failed := r.IsError
	if e, _ := r.Extra["is_error"].(bool); e {
		failed = true
	}
	if st, _ := r.Extra["status"].(string); st == "failed" || st == "error" || st == "failure" {
		failed = true
	}
	if raw, ok := r.Extra["raw_tool_result"].(map[string]any); ok {
		if e, _ := raw["is_error"].(bool); e {
			failed = true
		}
		if c, ok := toolResultText(raw["content"]); ok {
			return c, failed
		}
	}
	content, decoratedFailure := stripHarbor(r.Content)
	return content, failed || decoratedFailure
}

// toolResultText is a tool_result block's content: a string, or text
// blocks joined by newlines.
func toolResultText(v any) (string, bool) {
	switch c := v.(type) {
	case string:
		return c, true
	case []any:
		var parts []string
		for _, item := range c {
			if m, ok := item.(map[string]any); ok {
				if t, ok := m["text"].(string); ok {
					parts = append(parts, t)
				}
			}
		}
		return strings.Join(parts, "\n"), true
	}
	return "", false
}

// stripHarbor removes Harbor's decorations from content, reporting
// whether they said the tool failed.
func stripHarbor(content string) (string, bool) {
	failed := false
	if strings.HasSuffix(content, harborError) {
		content, failed = strings.TrimSuffix(strings.TrimSuffix(content, harborError), "\n\n"), true
	}
	for _, d := range harborDecorations {
		if strings.HasPrefix(content, d) {
			return "", failed
		}
		if i := strings.Index(content, "\n\n"+d); i >= 0 {
			content = content[:i]
		}
	}
	return content, failed
}

// exitCode is the exit code producers keep in a result's extra
// (exit_code, exitCode, return_code, returncode), nil without one.
func (r ATIFResult) exitCode() *int {
	for _, k := range []string{"exit_code", "exitCode", "return_code", "returncode"} {
		if f, ok := r.Extra[k].(float64); ok && f == float64(int(f)) {
			n := int(f)
			return &n
		}
	}
	return nil
}
