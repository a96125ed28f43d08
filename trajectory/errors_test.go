package trajectory_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// doc wraps steps (one per line, from line 3) in a valid trajectory.
func doc(steps ...string) string {
	s := "{\"id\": \"t\", \"task\": \"x\", \"vars\": {\"user\": \"u\"},\n\"steps\": [\n"
	for i, st := range steps {
		if i > 0 {
			s += ",\n"
		}
		s += st
	}
	return s + "\n]}\n"
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, doc string
		// where is "line:col: field" as it must follow "t.json:".
		where, want string
	}{
		{"syntax", "{\"id\": \"t\",\n  \"task\": x}", "2:11", "invalid JSON: invalid character 'x'"},
		{"truncated", "{\"id\": \"t\"", "1:11", "invalid JSON: unexpected end of JSON input"},
		{"array", `[{"id": "t"}]`, "1:1", "expected a trajectory object, got an array; for several trajectories use a .jsonl file"},
		{"id missing", `{"task": "x", "steps": [{"action": "noop"}]}`, "1:1: id", "required"},
		{"task missing", `{"id": "t", "steps": [{"action": "noop"}]}`, "1:1: task", "required"},
		{"no steps", `{"id": "t", "task": "x", "steps": []}`, "1:35: steps", "expected at least one step"},
		{"unknown top-level", `{"id": "t", "task": "x", "step": [], "steps": [{"action": "noop"}]}`, "1:26: step", `unknown field; did you mean "steps"?`},
		{"var name", `{"id": "t", "task": "x", "vars": {"my-var": "1"}, "steps": [{"action": "noop"}]}`, "1:35: vars.my-var", "expected a variable name"},
		{"message not object", `{"id": "t", "task": "x", "messages": ["hi"], "steps": [{"action": "noop"}]}`, "1:39: messages[0]", "expected a chat message object"},
		{"message without role", `{"id": "t", "task": "x", "messages": [{"content": "hi"}], "steps": [{"action": "noop"}]}`, "1:39: messages[0]", `expected a "role" string`},
		{"action missing", doc(`{"command": "ls"}`), "3:1: steps[0].action", "required: one of shell, write_file, read_file, edit_file, http, noop"},
		{"action unknown", doc(`{"action": "bash", "command": "ls"}`), "3:12: steps[0].action", `"bash": expected one of shell, write_file, read_file, edit_file, http, noop`},
		{"shell command", doc(`{"action": "noop"}`, `{"action": "shell"}`), "4:1: steps[1].command", `required for action "shell"`},
		{"foreign field", doc(`{"action": "shell", "command": "ls", "content": ""}`), "3:38: steps[0].content", `field "content" does not belong to action "shell" (it takes command, timeout, cwd, env)`},
		{"noop foreign field", doc(`{"action": "noop", "path": "x"}`), "3:20: steps[0].path", `does not belong to action "noop" (it takes note)`},
		{"unknown step field", doc(`{"action": "shell", "comand": "ls"}`), "3:21: steps[0].comand", `unknown field; did you mean "command"?`},
		{"wrong type", doc(`{"action": "shell", "command": ["ls"]}`), "3:32: steps[0].command", "expected a string, got an array"},
		{"bad timeout", doc(`{"action": "shell", "command": "ls", "timeout": "5 minutes"}`), "3:49: steps[0].timeout", `expected a duration such as "30s"`},
		{"env name", doc(`{"action": "shell", "command": "ls", "env": {"A B": "1"}}`), "3:46: steps[0].env[\"A B\"]", "expected a shell variable name"},
		{"write path", doc(`{"action": "write_file", "content": "x"}`), "3:1: steps[0].path", `required for action "write_file"`},
		{"write no content", doc(`{"action": "write_file", "path": "a"}`), "3:1: steps[0].content", `"content" (text) or "content_b64" (base64)`},
		{"write both contents", doc(`{"action": "write_file", "path": "a", "content": "x", "content_b64": "eA=="}`), "3:70: steps[0].content_b64", `exactly one of "content" and "content_b64", got both`},
		{"bad base64", doc(`{"action": "write_file", "path": "a", "content_b64": "!!"}`), "3:54: steps[0].content_b64", "expected standard base64"},
		{"bad mode", doc(`{"action": "write_file", "path": "a", "content": "", "mode": "755x"}`), "3:62: steps[0].mode", `expected 3 or 4 octal digits such as "0755"`},
		{"numeric mode", doc(`{"action": "write_file", "path": "a", "content": "", "mode": 755}`), "3:62: steps[0].mode", "expected a string, got a number (755)"},
		{"read range", doc(`{"action": "read_file", "path": "a", "range": {"start": 0}}`), "3:47: steps[0].range", "expected start ≥ 1"},
		{"range unknown field", doc(`{"action": "read_file", "path": "a", "range": {"from": 1}}`), "3:48: steps[0].range.from", "unknown field"},
		{"edit nothing", doc(`{"action": "edit_file", "path": "a"}`), "3:1: steps[0].old", `"old" and "new" (replace) or "insert_line" and "text" (insert)`},
		{"edit old only", doc(`{"action": "edit_file", "path": "a", "old": "x"}`), "3:1: steps[0].new", `required with "old"`},
		{"edit mixed", doc(`{"action": "edit_file", "path": "a", "old": "x", "new": "y", "text": "z"}`), "3:1: steps[0].insert_line", "not both"},
		{"edit negative line", doc(`{"action": "edit_file", "path": "a", "insert_line": -1, "text": "z"}`), "3:53: steps[0].insert_line", "expected a line number ≥ 0"},
		{"edit empty old", doc(`{"action": "edit_file", "path": "a", "old": "", "new": "y"}`), "3:45: steps[0].old", "expected non-empty text"},
		{"http method", doc(`{"action": "http", "method": "get", "url": "http://h/"}`), "3:30: steps[0].method", `"get": expected one of GET, POST, PUT, PATCH, DELETE, HEAD`},
		{"http url", doc(`{"action": "http", "method": "GET"}`), "3:1: steps[0].url", `required for action "http"`},
		{"http relative url", doc(`{"action": "http", "method": "GET", "url": "/v1/x"}`), "3:44: steps[0].url", "expected an absolute http(s) URL"},
		{"capture name", doc(`{"action": "http", "method": "GET", "url": "http://h/", "capture": {"1st": "a"}}`), "3:69: steps[0].capture[\"1st\"]", "expected a variable name"},
		{"capture path", doc(`{"action": "http", "method": "GET", "url": "http://h/", "capture": {"otp": "data..code"}}`), "3:76: steps[0].capture.otp", "expected a dotted path"},
		{"header name", doc(`{"action": "http", "method": "GET", "url": "http://h/", "headers": {"Bad Header": "1"}}`), "3:69: steps[0].headers[\"Bad Header\"]", "expected an HTTP header name"},
		{"compare", doc(`{"action": "shell", "command": "ls", "compare": "fuzzy"}`), "3:49: steps[0].compare", `"fuzzy": expected one of exact, normalized, normalized_hex, ignore`},
		{"tokens", doc(`{"action": "shell", "command": "ls", "tokens": -5}`), "3:48: steps[0].tokens", "expected a non-negative count"},
		{"tokens fraction", doc(`{"action": "shell", "command": "ls", "tokens": 1.5}`), "3:48: steps[0].tokens", "expected a whole number"},
		{"exit code type", doc(`{"action": "shell", "command": "ls", "observation": {"exit_code": "0"}}`), "3:67: steps[0].observation.exit_code", "expected a number, got a string"},
		{"observation field", doc(`{"action": "shell", "command": "ls", "observation": {"stdout": "x"}}`), "3:54: steps[0].observation.stdout", "unknown field"},
		{"http status", doc(`{"action": "http", "method": "GET", "url": "http://h/", "observation": {"status": 42}}`), "3:83: steps[0].observation.status", "between 100 and 599"},
		{"checkpoint type", doc(`{"action": "noop", "checkpoint": "no"}`), "3:34: steps[0].checkpoint", "expected a boolean"},
		{"step message", doc(`{"action": "noop", "messages": [{"role": ""}]}`), "3:33: steps[0].messages[0]", `expected a "role" string`},
		{"undefined var", doc(`{"action": "noop"}`, `{"action": "shell", "command": "echo {{vars.otp}}"}`), "4:32: steps[1].command", `{{vars.otp}} is not defined before this step`},
		{"var captured later", doc(`{"action": "http", "method": "GET", "url": "http://h/{{vars.otp}}", "capture": {"otp": "code"}}`), "3:44: steps[0].url", `{{vars.otp}} is not defined before this step`},
		{"malformed ref", doc(`{"action": "shell", "command": "echo {{ vars.a.b }}"}`), "3:32: steps[0].command", `malformed reference "{{ vars.a.b }}": expected {{vars.NAME}} or {{services.NAME}}`},
		{"unclosed ref", doc(`{"action": "http", "method": "GET", "url": "{{services.api/x"}`), "3:44: steps[0].url", `malformed reference "{{services.api/x"`},
		{"ref in header", doc(`{"action": "http", "method": "GET", "url": "http://h/", "headers": {"X-Otp": "{{vars.nope}}"}}`), "3:78: steps[0].headers.X-Otp", "{{vars.nope}} is not defined"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := trajectory.Parse("t.json", []byte(tc.doc), false)
			require.Error(t, err)
			var pe *task.ParseError
			require.ErrorAs(t, err, &pe, "every problem is a *task.ParseError")
			assert.Contains(t, err.Error(), "t.json:"+tc.where+": ")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestCapturedVarsAreVisibleLater(t *testing.T) {
	d := doc(
		`{"action": "http", "method": "POST", "url": "{{services.api}}/login", "capture": {"token": "auth.token"}}`,
		`{"action": "http", "method": "GET", "url": "{{ services.api }}/me", "headers": {"Authorization": "Bearer {{vars.token}}"}}`,
		`{"action": "shell", "command": "docker inspect --format '{{.State}}' x; echo {{vars.user}}"}`,
	)
	ts, err := trajectory.Parse("t.json", []byte(d), false)
	require.NoError(t, err)
	require.Len(t, ts, 1)
}

func TestValidateBuiltInCode(t *testing.T) {
	content := ""
	tr := &trajectory.Trajectory{ID: "t", Task: "x", Steps: []trajectory.Step{
		{Action: trajectory.KindShell, Command: "ls", Content: &content},
	}}
	err := tr.Validate()
	require.Error(t, err)
	assert.Equal(t, `steps[0].content: field "content" does not belong to action "shell" (it takes command, timeout, cwd, env)`, err.Error())

	tr.Steps[0].Content = nil
	assert.NoError(t, tr.Validate())
}

func TestFirstErrorIsFirstInDocument(t *testing.T) {
	d := doc(`{"action": "shell"}`, `{"action": "http"}`)
	_, err := trajectory.Parse("t.json", []byte(d), false)
	require.Error(t, err)
	var pe *task.ParseError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, task.ParseError{File: "t.json", Line: 3, Column: 1, Field: "steps[0].command", Msg: pe.Msg}, *pe)
	assert.Contains(t, err.Error(), "t.json:4:1: steps[1].method")
	assert.Contains(t, err.Error(), "t.json:4:1: steps[1].url")
}
