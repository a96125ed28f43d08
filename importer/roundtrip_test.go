package importer

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// actionsOf strips what is not the action, for OpenAI round trips.
func actionsOf(steps []trajectory.Step) []trajectory.Step {
	out := make([]trajectory.Step, len(steps))
	for i, s := range steps {
		s.Observation, s.Volatile, s.Checkpoint, s.Compare, s.Tokens, s.Messages = nil, false, nil, "", 0, nil
		out[i] = s
	}
	return out
}

// compact returns a copy of tr with its raw messages compacted, since
// messages are compared as JSON values, not as bytes.
func compact(t *testing.T, tr *trajectory.Trajectory) *trajectory.Trajectory {
	t.Helper()
	c := *tr
	one := func(ms []json.RawMessage) []json.RawMessage {
		var out []json.RawMessage
		for _, m := range ms {
			var b bytes.Buffer
			require.NoError(t, json.Compact(&b, m))
			out = append(out, b.Bytes())
		}
		return out
	}
	c.Messages = one(tr.Messages)
	c.Steps = append([]trajectory.Step(nil), tr.Steps...)
	for i := range c.Steps {
		c.Steps[i].Messages = one(c.Steps[i].Messages)
	}
	return &c
}

func assertRoundTrips(t *testing.T, tr *trajectory.Trajectory) {
	t.Helper()
	a, err := ExportATIF(tr)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, WriteJSON(&buf, a))
	f, err := Detect(buf.Bytes())
	require.NoError(t, err)
	require.Equal(t, FormatATIF, f)
	back, err := Import(FormatATIF, "x.json", buf.Bytes())
	require.NoError(t, err)
	got := back.Trajectories[0]
	assert.Equal(t, compact(t, tr).Steps, compact(t, got).Steps, "native → ATIF → native")
	assert.Equal(t, compact(t, tr).Messages, compact(t, got).Messages)
	assert.Equal(t, tr.ID, got.ID)
	assert.Equal(t, tr.Task, got.Task)

	o, err := ExportOpenAI(tr)
	require.NoError(t, err)
	buf.Reset()
	require.NoError(t, WriteJSON(&buf, o))
	back, err = Import(FormatOpenAI, "x.json", buf.Bytes())
	require.NoError(t, err)
	assert.Equal(t, actionsOf(tr.Steps), actionsOf(back.Trajectories[0].Steps), "native → OpenAI → native")
	assert.Empty(t, back.Report.UnknownTools)
}

func TestRoundTripExamples(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	paths, err := filepath.Glob(filepath.Join(filepath.Dir(file), "..", "examples", "*", "trajectory.json"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, p := range paths {
		t.Run(filepath.Base(filepath.Dir(p)), func(t *testing.T) {
			ts, err := trajectory.Load(p)
			require.NoError(t, err)
			ts[0].Path = ""
			assertRoundTrips(t, ts[0])
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			f, err := Detect(data)
			require.NoError(t, err)
			assert.Equal(t, FormatNative, f)
		})
	}
}

func TestOpenAIArgumentsAsObjectOrString(t *testing.T) {
	doc := `[{"role":"user","content":"go"},
	{"role":"assistant","content":null,"tool_calls":[
	  {"id":"a","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}},
	  {"id":"b","type":"function","function":{"name":"str_replace_editor","arguments":{"command":"create","path":"x.py","file_text":"print(1)\n"}}},
	  {"id":"c","type":"function","function":{"name":"browser","arguments":{"url":"http://x"}}}]},
	{"role":"tool","tool_call_id":"a","content":"f\n"},
	{"role":"tool","tool_call_id":"b","content":"created"},
	{"role":"tool","tool_call_id":"c","content":"?"}]`
	res, err := Import(FormatAuto, "chat.json", []byte(doc))
	require.NoError(t, err)
	s := res.Trajectories[0].Steps
	require.Len(t, s, 3)
	assert.Equal(t, "ls", s[0].Command)
	assert.Equal(t, "f\n", s[0].Observation.Output)
	assert.Equal(t, trajectory.KindWriteFile, s[1].Action)
	assert.Equal(t, "print(1)\n", *s[1].Content)
	assert.Equal(t, trajectory.KindNoop, s[2].Action)
	assert.Contains(t, s[2].Note, `unknown tool "browser"`)
	assert.Equal(t, map[string]int{"browser": 1}, res.Report.UnknownTools)
	assert.Len(t, res.Trajectories[0].Messages, 1)
}

func TestToolsMapExtends(t *testing.T) {
	m, err := ParseToolMap("x.yaml", []byte("tools:\n  browser: {action: shell, args: {command: url}}\n"))
	require.NoError(t, err)
	doc := `[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"browser","arguments":{"url":"echo hi"}}}]}]`
	res, err := Import(FormatOpenAI, "c.json", []byte(doc), WithTools(DefaultTools().Merge(m)))
	require.NoError(t, err)
	assert.Equal(t, "echo hi", res.Trajectories[0].Steps[0].Command)
	_, err = ParseToolMap("bad.yaml", []byte("tools:\n  x: {action: jump}\n"))
	assert.ErrorIs(t, err, ErrToolMap)
	assert.NotEmpty(t, DefaultTools())
}

func TestParsePyLiteral(t *testing.T) {
	v, err := parsePyLiteral(`{'command': 'create', 'path': "/a b", 'n': -3, 'ok': True, 'x': None, 'l': [1, 'it\'s\n\xe9']}`)
	require.NoError(t, err)
	m := v.(map[string]any)
	assert.Equal(t, "create", m["command"])
	assert.Equal(t, float64(-3), m["n"])
	assert.Equal(t, []any{float64(1), "it's\né"}, m["l"])
}

func FuzzImport(f *testing.F) {
	if dir := corpusDir(); dir != "" {
		files, _ := filepath.Glob(filepath.Join(dir, "*", "*"))
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil && filepath.Base(p) != "SOURCE" {
				f.Add(b)
			}
		}
	}
	f.Add([]byte(`[{"role":"assistant","tool_calls":[{"id":"1","function":{"name":"bash","arguments":"{}"}}]}]`))
	f.Add([]byte(`{"schema_version":"ATIF-v1.4","session_id":"s","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"agent","message":"hi"}]}`))
	f.Add([]byte(claudeCodeATIF))
	f.Add([]byte(`{"schema_version":"1.4","session_id":"s","agent":{},"steps":[{"source":"agent","tool_calls":[{"id":"a","name":"Edit","input":{"file_path":"f","old_string":"x","new_string":"y","replace_all":"true"}}]},{"source":"user","observation":{"results":[{"source_call_id":"a","is_error":true,"content":"Exit code 3"}]}}]}`))
	f.Add([]byte(miniATIF))
	f.Add(editorChat(f, []editorCall{{map[string]any{"command": "str_replace", "path": "/a", "old_str": "x", "new_str": ""}, "ok"},
		{map[string]any{"command": "undo_edit", "path": "/a"}, undoResult("/a", "x\n")}}))
	f.Add([]byte(`[{"role":"assistant","tool_calls":[{"id":"1","function":{"name":"apply_patch","arguments":"{\"input\": \"*** Begin Patch\\n*** Update File: a\\n@@\\n-x\\n+y\\n*** End Patch\"}"}}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, fm := range Formats {
			_, _ = Import(fm, "fuzz.json", data)
		}
	})
}

func FuzzPyLiteral(f *testing.F) {
	f.Add(`{'a': [1, 2.5, 'x\n'], "b": (None, True)}`)
	f.Fuzz(func(t *testing.T, s string) { _, _ = parsePyLiteral(s) })
}

func TestRoundTripPinned(t *testing.T) {
	zero := 0
	tr := &trajectory.Trajectory{ID: "p", Task: "task.yaml", Steps: []trajectory.Step{
		{Action: trajectory.KindShell, Command: "wc -l < f", Compare: "normalized_hex", Observation: &trajectory.Observation{
			Output: "2\n", ExitCode: &zero, Pinned: true, OutputSHA256: "d4735e3a265e16eee03f59718b9b5d03019c07d8b6c51f90da3a666eec13ab35"}}}}
	require.NoError(t, tr.Validate())
	assertRoundTrips(t, tr)
}
