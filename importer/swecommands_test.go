package importer

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// sweTextTraj is a SWE-agent text-mode run in .traj's "trajectory" form,
// written for rbx from SWE-agent's windowed tool bundle documentation.
func sweTextTraj(t *testing.T) []byte {
	t.Helper()
	type turn struct {
		Action      string `json:"action"`
		Observation string `json:"observation"`
	}
	turns := []turn{
		{"find_file \"calc.py\"", "Found 1 matches for \"calc.py\" in /repo:\n/repo/calc.py\n(Open file: n/a)\n(Current directory: /repo)\nbash-$"},
		{"open calc.py 3", "[File: /repo/calc.py (4 lines total)]\n1:def add(a, b):\n2:    return a - b\n(Open file: /repo/calc.py)\n(Current directory: /repo)\nbash-$"},
		{"goto 2", "[File: /repo/calc.py (4 lines total)]"},
		{"edit 2:2\n    return a +\nend_of_edit", "Your proposed edit has introduced new syntax error(s). Please read this error message carefully and then retry editing the file.\nYour changes have NOT been applied. Please fix your edit command and try again."},
		{"edit 2:2\n    return a + b\nend_of_edit", "File updated. Please review the changes and make sure they are correct."},
		{"insert 2\n\ndef sub(a, b):\n    return a - b\nend_of_insert", "File updated."},
		{"search_dir \"add(\" tests", "Found 2 matches"},
		{"python -m pytest -q", "2 passed\n(Open file: /repo/calc.py)\n(Current directory: /repo)\nbash-$"},
		{"edit weird", "Usage: edit <start_line>:<end_line>"},
		{"submit", ""},
	}
	data, err := json.Marshal(map[string]any{"trajectory": turns, "info": map[string]any{}})
	require.NoError(t, err)
	return data
}

func TestImportSWEAgentTextCommands(t *testing.T) {
	res, err := Import(FormatSWEAgent, "run.traj", sweTextTraj(t))
	require.NoError(t, err)
	s := res.Trajectories[0].Steps
	var kinds []trajectory.Kind
	for _, st := range s {
		kinds = append(kinds, st.Action)
	}
	require.Equal(t, []trajectory.Kind{
		trajectory.KindNoop, trajectory.KindReadFile, trajectory.KindNoop, trajectory.KindNoop,
		trajectory.KindEditFile, trajectory.KindEditFile, trajectory.KindNoop, trajectory.KindShell,
		trajectory.KindNoop, trajectory.KindNoop,
	}, kinds, "no SWE-agent command is left to bash")
	assert.Equal(t, "calc.py", s[1].Path)
	assert.Contains(t, s[3].Note, "not applied", "the rejected edit changes nothing")
	assert.Equal(t, "calc.py", s[4].Path, "edit works on the open file")
	assert.Equal(t, &trajectory.Range{Start: 2, End: 2}, s[4].Range)
	assert.Equal(t, "    return a + b\n", *s[4].Text)
	assert.Equal(t, 2, *s[5].InsertLine)
	assert.Equal(t, "\ndef sub(a, b):\n    return a - b\n", *s[5].Text)
	assert.Equal(t, "python -m pytest -q", s[7].Command)
	assert.Equal(t, "2 passed", s[7].Observation.Output)
	assert.Contains(t, s[8].Note, `unknown tool "edit (not <start>:<end>)"`)
	require.NoError(t, res.Trajectories[0].Validate())
}

func TestShellWords(t *testing.T) {
	for in, want := range map[string][]string{
		`open "a b.py" 10`:    {"open", "a b.py", "10"},
		`find_file 'x y' dir`: {"find_file", "x y", "dir"},
		`search_dir a\ b`:     {"search_dir", "a b"},
		`  goto   3 `:         {"goto", "3"},
		`create ""`:           {"create", ""},
	} {
		assert.Equal(t, want, shellWords(in), in)
	}
}

// TestOpenHandsMessageText: an agent's message action keeps its words
// as the assistant's message, never an empty one.
func TestOpenHandsMessageText(t *testing.T) {
	evs := `[
	 {"id": 1, "source": "user", "action": "message", "args": {"content": "fix it"}},
	 {"id": 2, "source": "agent", "action": "message", "args": {"content": "I will look at calc.py first.", "wait_for_response": false}},
	 {"id": 3, "source": "agent", "action": "run", "args": {"command": "ls", "thought": ""}},
	 {"id": 4, "source": "environment", "observation": "run", "cause": 3, "content": "calc.py", "extras": {"metadata": {"exit_code": 0}}}]`
	res, err := Import(FormatOpenHands, "oh.json", []byte(evs))
	require.NoError(t, err)
	s := res.Trajectories[0].Steps
	require.Len(t, s, 2)
	require.Len(t, s[0].Messages, 1)
	var m map[string]any
	require.NoError(t, json.Unmarshal(s[0].Messages[0], &m))
	assert.Equal(t, "assistant", m["role"])
	assert.Equal(t, "I will look at calc.py first.", m["content"])
	assert.Empty(t, s[1].Messages, "a run without a thought adds no empty assistant message")
	assert.Equal(t, 0, *s[1].Observation.ExitCode)
}

// TestSWEAgentFunctionInsert: SWE-agent's insert tool (function calling)
// inserts into the open file; its text is never lost.
func TestSWEAgentFunctionInsert(t *testing.T) {
	msgs := `[{"role": "assistant", "content": "", "tool_calls": [{"id": "1", "type": "function", "function": {"name": "open", "arguments": "{\"path\": \"a.py\"}"}}]},
	 {"role": "tool", "tool_call_id": "1", "content": "[File: a.py]"},
	 {"role": "assistant", "content": "", "tool_calls": [{"id": "2", "type": "function", "function": {"name": "insert", "arguments": "{\"line_number\": 3, \"text\": \"x = 1\"}"}}]},
	 {"role": "tool", "tool_call_id": "2", "content": "File updated."}]`
	res, err := Import(FormatOpenAI, "f.json", []byte(msgs))
	require.NoError(t, err)
	s := res.Trajectories[0].Steps
	require.Len(t, s, 2)
	assert.Equal(t, trajectory.KindEditFile, s[1].Action)
	assert.Equal(t, "a.py", s[1].Path)
	assert.Equal(t, 3, *s[1].InsertLine)
	assert.Equal(t, "x = 1", *s[1].Text)
}

// TestSWEAgentTextEditor: SWE-agent's edit_anthropic bundle in text mode:
// str_replace_editor typed as a command line, its arguments quoted as bash
// reads them (multi-line single quotes; in double quotes \" and \\ escaped,
// \n kept as written); decompile and filemap only read.
func TestSWEAgentTextEditor(t *testing.T) {
	type turn struct {
		Action      string `json:"action"`
		Observation string `json:"observation"`
	}
	turns := []turn{
		{"str_replace_editor create /repo/a.py --file_text 'def f():\n    return 1\n'", "File created successfully at: /repo/a.py"},
		{"str_replace_editor str_replace /repo/a.py --old_str '    return 1' --new_str \"    return \\\"\\\\n\\\" + 'x\\n'\"", "The file /repo/a.py has been edited."},
		{"str_replace_editor view /repo/a.py --view_range 1 2", "Here's the result of running `cat -n`"},
		{"str_replace_editor insert /repo/a.py --insert_line 2 --new_str '# end'", "The file /repo/a.py has been edited."},
		{"str_replace_editor undo_edit /repo/a.py", "Last edit to /repo/a.py undone successfully."},
		{"str_replace_editor frobnicate", "usage"},
		{"decompile /repo/bin/app main", "int main() {}"},
		{"filemap /repo/a.py", "def f(): ..."},
	}
	data, err := json.Marshal(map[string]any{"trajectory": turns, "info": map[string]any{}})
	require.NoError(t, err)
	res, err := Import(FormatSWEAgent, "run.traj", data)
	require.NoError(t, err)
	s := res.Trajectories[0].Steps
	require.Len(t, s, 8)
	assert.Equal(t, trajectory.KindWriteFile, s[0].Action)
	assert.Equal(t, "def f():\n    return 1\n", *s[0].Content)
	assert.Equal(t, "    return 1", *s[1].Old)
	assert.Equal(t, `    return "\n" + 'x\n'`, *s[1].New, "bash's double quotes: \\\" and \\\\ escaped, \\n kept")
	assert.Equal(t, &trajectory.Range{Start: 1, End: 2}, s[2].Range)
	assert.Equal(t, 2, *s[3].InsertLine)
	assert.Equal(t, trajectory.KindEditFile, s[4].Action, "the undo reverses the insertion")
	assert.Equal(t, &trajectory.Range{Start: 3, End: 3}, s[4].Range)
	assert.Equal(t, trajectory.KindNoop, s[5].Action)
	assert.Equal(t, map[string]int{"str_replace_editor (unparsed)": 1}, res.Report.UnknownTools)
	assert.Equal(t, trajectory.KindNoop, s[6].Action)
	assert.Equal(t, trajectory.KindNoop, s[7].Action)
}
