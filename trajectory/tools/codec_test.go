package tools_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/trajectory/tools"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, tool, args string
		opts             []tools.Option
		err              string // "" for success
	}{
		{name: "edit", tool: "edit_file", args: `{"path":"a","old":"x","new":"y"}`},
		{name: "OpenAI string arguments", tool: "shell", args: `"{\"command\":\"ls\"}"`},
		{name: "http capture is an argument", tool: "http", args: `{"method":"POST","url":"{{services.api}}/otp","capture":{"otp":"data.code"}}`},
		{name: "http retry is an argument", tool: "http", args: `{"method":"POST","url":"http://h/otp","retry":true}`},
		{name: "retry is a boolean", tool: "http", args: `{"method":"POST","url":"http://h/otp","retry":"yes"}`, err: "arguments"},
		{name: "retry belongs to http", tool: "shell", args: `{"command":"ls","retry":true}`, err: `no argument "retry"`},
		{name: "binary content", tool: "write_file", args: `{"path":"a","content_b64":"aGk="}`},
		{name: "unbound var without WithVars", tool: "shell", args: `{"command":"echo {{vars.otp}}"}`},
		{name: "bound var", tool: "shell", args: `{"command":"echo {{vars.otp}}"}`, opts: []tools.Option{tools.WithVars(map[string]string{"otp": "1"})}},
		{name: "unbound var", tool: "shell", args: `{"command":"echo {{vars.otp}}"}`, opts: []tools.Option{tools.WithVars(nil)}, err: "not defined"},
		{name: "recording member", tool: "shell", args: `{"command":"ls","observation":{}}`, err: `no argument "observation"`},
		{name: "missing content", tool: "write_file", args: `{"path":"a"}`, err: "content"},
		{name: "empty old", tool: "edit_file", args: `{"path":"a","old":"","new":"b"}`, err: "old"},
		{name: "not an object", tool: "http", args: `[1]`, err: "expected a JSON object"},
		{name: "wrong type", tool: "write_file", args: `{"path":3}`, err: "arguments"},
		{name: "missing path", tool: "read_file", args: `{}`, err: "path"},
		{name: "unknown tool", tool: "rm", args: `{}`, err: `unknown tool "rm"`},
		{name: "noop is no tool", tool: "noop", args: `{"note":"x"}`, err: "unknown tool"},
		{name: "bad mode", tool: "write_file", args: `{"path":"a","content":"","mode":"9"}`, err: "mode"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := tools.Parse(tc.tool, []byte(tc.args), tc.opts...)
			if tc.err != "" {
				require.ErrorIs(t, err, tools.ErrMalformed)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, trajectory.Kind(tc.tool), s.Action)
		})
	}
}

func TestArgumentsRoundTrip(t *testing.T) {
	content, line, text, retry := "hi\n", 0, "top\n", false
	steps := []trajectory.Step{
		{Action: trajectory.KindShell, Command: "ls", Cwd: "/tmp", Env: map[string]string{"A": "1"}},
		{Action: trajectory.KindWriteFile, Path: "a", Content: &content, Mode: "0755"},
		{Action: trajectory.KindReadFile, Path: "a", Range: &trajectory.Range{Start: 2, End: 3}},
		{Action: trajectory.KindEditFile, Path: "a", InsertLine: &line, Text: &text},
		{Action: trajectory.KindHTTP, Method: "GET", URL: "http://x/y", Capture: map[string]string{"v": "data.v"}, Retry: &retry},
	}
	for _, s := range steps {
		t.Run(string(s.Action), func(t *testing.T) {
			rec := s
			rec.Observation, rec.Volatile = &trajectory.Observation{Output: "x"}, true
			args, err := tools.Arguments(rec)
			require.NoError(t, err)
			assert.NotContains(t, string(args), "observation", "recording members are no arguments")
			back, err := tools.Parse(string(s.Action), args)
			require.NoError(t, err)
			assert.Equal(t, s, back)
		})
	}
}

func TestSchemasCoverArguments(t *testing.T) {
	for _, tool := range tools.Schemas() {
		k := trajectory.Kind(tool.Function.Name)
		props := tool.Function.Parameters["properties"].(map[string]any)
		var names []string
		for n := range props {
			names = append(names, n)
		}
		assert.ElementsMatch(t, k.ArgNames(), names, k)
		_, err := json.Marshal(tool)
		require.NoError(t, err)
	}
	assert.Len(t, tools.Schemas(), len(tools.Kinds))
}
