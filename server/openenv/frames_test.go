package openenv

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseReset(t *testing.T) {
	cases := []struct {
		name, data string
		want       ResetData
		code       string
	}{
		{name: "nothing", data: ``},
		{name: "null", data: `null`},
		{name: "task and extra keys", data: `{"task": "a", "prompt": "p", "x": {"y": 1}}`, want: ResetData{Task: "a"}},
		{name: "checkpoint", data: `{"task": "a", "checkpoint": 3}`, want: ResetData{Task: "a", Checkpoint: json.RawMessage(`3`)}},
		{name: "seed as the group key", data: `{"task": "a", "seed": 42}`, want: ResetData{Task: "a", GroupKey: "seed:42"}},
		{name: "group before seed", data: `{"seed": 1, "group": "g"}`, want: ResetData{GroupKey: "group:g"}},
		{name: "a float seed as written", data: `{"seed": 1.5}`, want: ResetData{GroupKey: "seed:1.5"}},
		{name: "null seed", data: `{"seed": null}`},
		{name: "not an object", data: `[1]`, code: CodeValidation},
		{name: "task not a string", data: `{"task": 3}`, code: CodeValidation},
		{name: "group an object", data: `{"group": {}}`, code: CodeValidation},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, e := parseReset(json.RawMessage(tc.data))
			if tc.code != "" {
				require.NotNil(t, e)
				assert.Equal(t, tc.code, e.Code)
				return
			}
			require.Nil(t, e)
			got.Raw = nil
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestParseAction(t *testing.T) {
	cases := []struct {
		name, data string
		want       ToolCall
		list       bool
		code       string
	}{
		{name: "plain", data: `{"name": "shell", "arguments": {"command": "ls"}}`, want: ToolCall{Name: "shell", Arguments: json.RawMessage(`{"command": "ls"}`)}},
		{name: "call_tool", data: `{"type": "call_tool", "tool_name": "submit", "arguments": {}}`, want: ToolCall{Name: "submit", Arguments: json.RawMessage(`{}`)}},
		{name: "list_tools", data: `{"type": "list_tools"}`, list: true},
		{name: "call_tool without a name", data: `{"type": "call_tool"}`, code: CodeValidation},
		{name: "empty", data: `{}`, code: CodeValidation},
		{name: "not an object", data: `"ls"`, code: CodeValidation},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, list, e := parseAction(json.RawMessage(tc.data))
			if tc.code != "" {
				require.NotNil(t, e)
				assert.Equal(t, tc.code, e.Code)
				return
			}
			require.Nil(t, e)
			assert.Equal(t, tc.list, list)
			assert.Equal(t, tc.want, got)
		})
	}
}

// FuzzFrames: no frame data makes the parsers panic, and what they accept
// is what they say.
func FuzzFrames(f *testing.F) {
	for _, s := range []string{`{"task": "a", "seed": 1}`, `{"type": "call_tool", "tool_name": "x"}`, `null`, `{"group": 1e400}`, `[`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if d, e := parseReset(data); e == nil && d.GroupKey != "" {
			assert.Regexp(t, `^(group|seed):`, d.GroupKey)
		}
		if call, list, e := parseAction(data); e == nil && !list {
			assert.NotEmpty(t, call.Name)
		}
	})
}
