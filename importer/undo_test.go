package importer

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// editorCall is one str_replace_editor call and its result, for a chat
// trajectory in OpenAI's shape (SWE-agent's function-calling mode).
type editorCall struct {
	args   map[string]any
	result string
}

func editorChat(t testing.TB, calls []editorCall) []byte {
	t.Helper()
	msgs := []any{map[string]any{"role": "user", "content": "fix it"}}
	for i, c := range calls {
		args, err := json.Marshal(c.args)
		require.NoError(t, err)
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{"id": id, "type": "function",
				"function": map[string]any{"name": "str_replace_editor", "arguments": string(args)}}}},
			map[string]any{"role": "tool", "tool_call_id": id, "content": c.result})
	}
	data, err := json.Marshal(msgs)
	require.NoError(t, err)
	return data
}

// catN is the editors' `cat -n` rendering of content.
func catN(content string) string {
	var b strings.Builder
	for i, l := range strings.Split(content, "\n") {
		fmt.Fprintf(&b, "%6d\t%s\n", i+1, l)
	}
	return b.String()
}

func undoResult(path, content string) string {
	return "Last edit to " + path + " undone successfully. Here's the result of running `cat -n` on " + path + ":\n" + catN(content)
}

// TestImportUndoEdit: str_replace_editor's undo_edit writes back the
// file as before the path's last edit; the import reproduces it from the
// file its result shows, else by reversing that edit, and the replayed
// file is the agent's at every step.
func TestImportUndoEdit(t *testing.T) {
	const p = "/repo/a.py"
	edit := func(old, new string) map[string]any {
		return map[string]any{"command": "str_replace", "path": p, "old_str": old, "new_str": new}
	}
	undo := map[string]any{"command": "undo_edit", "path": p}
	v0 := "def f():\n    return 1\n"
	v1 := "def f():\n    return 2\n"
	calls := []editorCall{
		{map[string]any{"command": "create", "path": p, "file_text": v0}, "File created successfully at: " + p},
		{edit("return 1", "return 2"), "The file " + p + " has been edited."},
		{undo, undoResult(p, v0)}, // the file shown whole: written back as shown
		{edit("return 1", "return 3"), "The file " + p + " has been edited."},
		{map[string]any{"command": "insert", "path": p, "insert_line": 1, "new_str": "    x = 1\n    y = 2"}, "The file " + p + " has been edited."},
		{undo, "Last edit to " + p + " undone successfully. <response clipped>"}, // clipped: the insertion reversed
		{edit("return 9", "return 4"), "No replacement was performed, old_str `return 9` did not appear verbatim in " + p + "."},
		{undo, ""},                // no result: the last applied edit (return 1 → 3) reversed
		{undo, undoResult(p, v0)}, // the create's undo: written back as shown
		{undo, "No edit history found for " + p + "."}, // the tool said no: nothing
		{edit("return 1", "return 2"), "The file " + p + " has been edited."},
	}
	res, err := Import(FormatOpenAI, "u.json", editorChat(t, calls))
	require.NoError(t, err)
	steps := res.Trajectories[0].Steps
	require.Len(t, steps, len(calls))
	var kinds []trajectory.Kind
	for _, s := range steps {
		kinds = append(kinds, s.Action)
	}
	assert.Equal(t, []trajectory.Kind{"write_file", "edit_file", "write_file", "edit_file", "edit_file", "edit_file", "edit_file",
		"edit_file", "write_file", "noop", "edit_file"}, kinds)
	assert.Equal(t, &trajectory.Range{Start: 2, End: 3}, steps[5].Range, "the two inserted lines deleted")
	assert.Equal(t, "return 3", *steps[7].Old, "the failed edit is not the one undone")
	assert.Contains(t, steps[9].Note, "not applied by the agent's tool")

	// The file after each step, replayed with replay's own edits, is the
	// one the agent's editor left.
	want := []string{v0, v1, v0, "def f():\n    return 3\n", "def f():\n    x = 1\n    y = 2\n    return 3\n",
		"def f():\n    return 3\n", "def f():\n    return 3\n", v0, v0, v0, v1}
	file := ""
	for i, s := range steps {
		file = applyStep(t, file, s)
		assert.Equal(t, want[i], file, "after step %d", i)
	}
}

// applyStep applies a file step to content as replay does; a recorded
// failure must fail.
func applyStep(t *testing.T, content string, s trajectory.Step) string {
	t.Helper()
	var out string
	var err error
	switch {
	case s.Action == trajectory.KindWriteFile:
		return *s.Content
	case s.Action != trajectory.KindEditFile:
		return content
	case s.Old != nil:
		out, err = replayer.ReplaceOnce(content, *s.Old, *s.New)
	case s.Range != nil:
		out, err = replayer.ReplaceLines(content, s.Range.Start, s.Range.End, *s.Text)
	default:
		out, err = replayer.InsertAfter(content, *s.InsertLine, *s.Text)
	}
	if s.Observation != nil && s.Observation.ExitCode != nil && *s.Observation.ExitCode != 0 {
		require.Error(t, err, "a recorded failure fails again")
		return content
	}
	require.NoError(t, err)
	return out
}

// TestImportUndoUnfaithful: an undo whose result is clipped after an
// edit that cannot be reversed from its arguments (a deletion) is refused
// at import, naming the step; no undo is guessed.
func TestImportUndoUnfaithful(t *testing.T) {
	const p = "/repo/a.py"
	calls := []editorCall{
		{map[string]any{"command": "str_replace", "path": p, "old_str": "x = 1\n", "new_str": ""}, "The file " + p + " has been edited."},
		{map[string]any{"command": "undo_edit", "path": p}, "Last edit to " + p + " undone successfully. <response clipped>"},
	}
	_, err := Import(FormatOpenAI, "u.json", editorChat(t, calls))
	require.ErrorIs(t, err, ErrUnfaithful)
	assert.Contains(t, err.Error(), "step 1 (undo_edit /repo/a.py)")
	assert.Contains(t, err.Error(), "deleted its text")
}
