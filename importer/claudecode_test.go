package importer

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// claudeCodeATIF is a Claude Code run as Harbor's converter writes it, in
// the shapes seen in the wild: a bare "1.4" version, tool calls with
// id/name/input, results in the step after the call (one with is_error),
// a call id used twice, tools in Claude Code's case. Written for rbx
// from the ATIF RFC and Claude Code's tool schemas.
const claudeCodeATIF = `{
  "schema_version": "1.4",
  "session_id": "cc-1",
  "agent": {"name": "claude-code", "version": "2.0.1"},
  "steps": [
    {"step_id": 1, "source": "user", "message": "Fix the config."},
    {"step_id": 2, "source": "agent", "message": "Looking.", "tool_calls": [
      {"id": "t1", "name": "Bash", "input": {"command": "ls /app", "description": "list"}},
      {"id": "t2", "name": "Read", "input": {"file_path": "/app/config.py", "offset": 1, "limit": 20}}]},
    {"step_id": 3, "source": "user", "message": "", "observation": {"results": [
      {"source_call_id": "t1", "content": "config.py\nmain.py"},
      {"source_call_id": "t2", "content": "     1\tDEBUG = True\n     2\tDEBUG_LEVEL = 1"}]}},
    {"step_id": 4, "source": "agent", "message": "", "tool_calls": [
      {"tool_call_id": "t3", "function_name": "Edit", "arguments": {"file_path": "/app/config.py", "old_string": "DEBUG", "new_string": "VERBOSE", "replace_all": true}},
      {"tool_call_id": "t4", "function_name": "Write", "arguments": {"file_path": "/etc/app.conf", "content": "x=1\n"}},
      {"tool_call_id": "t5", "function_name": "Bash", "arguments": {"command": "python -m pytest -q"}}],
     "observation": {"results": [
      {"source_call_id": "t3", "content": "The file /app/config.py has been updated. All occurrences of 'DEBUG' were replaced with 'VERBOSE'."},
      {"source_call_id": "t4", "content": "EACCES: permission denied, open '/etc/app.conf'", "is_error": true},
      {"source_call_id": "t5", "content": "Exit code 1\nF.\n1 failed", "is_error": true}]}},
    {"step_id": 5, "source": "agent", "message": "", "tool_calls": [
      {"id": "t6", "name": "TodoWrite", "input": {"todos": []}},
      {"id": "t6", "name": "Glob", "input": {"pattern": "**/*.py"}},
      {"id": "t7", "name": "NotebookEdit", "input": {"notebook_path": "/app/n.ipynb", "new_source": "x"}}],
     "observation": {"results": [
      {"source_call_id": "t6", "content": "Todos updated"},
      {"source_call_id": "t6", "content": "/app/config.py"},
      {"source_call_id": "t7", "content": "ok"}]}}
  ]
}`

func TestImportClaudeCodeATIF(t *testing.T) {
	f, err := Detect([]byte(claudeCodeATIF))
	require.NoError(t, err)
	require.Equal(t, FormatATIF, f, "a bare 1.x version with session_id, agent and steps is ATIF")
	res, err := Import(FormatATIF, "cc.json", []byte(claudeCodeATIF))
	require.NoError(t, err)
	tr := res.Trajectories[0]
	var kinds []trajectory.Kind
	for _, s := range tr.Steps {
		kinds = append(kinds, s.Action)
	}
	require.Equal(t, []trajectory.Kind{
		trajectory.KindShell, trajectory.KindReadFile, trajectory.KindEditFile, trajectory.KindWriteFile, trajectory.KindShell,
		trajectory.KindNoop, trajectory.KindNoop, trajectory.KindShell,
	}, kinds)
	s := tr.Steps
	assert.Equal(t, "ls /app", s[0].Command)
	require.NotNil(t, s[0].Observation, "a result in a later step is attached")
	assert.Equal(t, "config.py\nmain.py", s[0].Observation.Output)
	assert.Equal(t, "/app/config.py", s[1].Path)
	assert.Nil(t, s[1].Observation, "a read's numbered listing stays in the messages")
	assert.Equal(t, "DEBUG", *s[2].Old)
	assert.Equal(t, "VERBOSE", *s[2].New)
	assert.True(t, s[2].All, "replace_all")
	assert.Nil(t, s[2].Observation)
	require.NotNil(t, s[3].Observation, "the refused write is recorded as a failure")
	assert.Equal(t, 1, *s[3].Observation.ExitCode)
	require.NotNil(t, s[4].Observation.ExitCode, "Bash's 'Exit code 1'")
	assert.Equal(t, 1, *s[4].Observation.ExitCode)
	assert.Equal(t, "**/*.py", s[6].Note, "the second use of call id t6 takes the second result")
	assert.Contains(t, s[7].Command, "python3 -c", "NotebookEdit edits the notebook's JSON")
	assert.Contains(t, s[7].Command, `{"new_source":"x","notebook_path":"/app/n.ipynb"}`)
	assert.Empty(t, res.Report.Warnings)
	require.NoError(t, tr.Validate(), "the import is a valid native trajectory")
}

func TestATIFVersions(t *testing.T) {
	for v, want := range map[string]bool{
		"ATIF-v1.4": true, "ATIF-v1.0": true, "ATIF-v1.x": true, "1.4": true, "v1.2": true, "atif v1": true,
		"ATIF-v2.0": false, "2": false, "": false, "one": false,
	} {
		assert.Equal(t, want, atifV1(v), v)
	}
}

// TestChatRepeatedCallIDs: calls sharing one id (SWE-agent sent four so)
// each take the next result with that id; none is lost.
func TestChatRepeatedCallIDs(t *testing.T) {
	msgs := `[{"role": "user", "content": "go"},
	 {"role": "assistant", "content": "", "tool_calls": [
	   {"id": "c", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"echo 1\"}"}},
	   {"id": "c", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"echo 2\"}"}},
	   {"id": "c", "type": "function", "function": {"name": "bash", "arguments": "not json"}}]},
	 {"role": "tool", "tool_call_id": "c", "content": "1"},
	 {"role": "tool", "tool_call_id": "c", "content": "2"},
	 {"role": "tool", "tool_call_id": "c", "content": "error"}]`
	res, err := Import(FormatOpenAI, "o.json", []byte(msgs))
	require.NoError(t, err)
	s := res.Trajectories[0].Steps
	require.Len(t, s, 3)
	assert.Equal(t, "1", s[0].Observation.Output)
	assert.Equal(t, "2", s[1].Observation.Output)
	assert.Equal(t, trajectory.KindNoop, s[2].Action)
	require.NotEmpty(t, res.Report.Warnings)
	assert.Contains(t, res.Report.Warnings[0], "messages[1].tool_calls[2]: ")
}

// TestImportClaudeCodeMultiEdit: a MultiEdit is its edits in order on the
// one file; a failed one (all or nothing) changed nothing.
func TestImportClaudeCodeMultiEdit(t *testing.T) {
	doc := `{"schema_version": "ATIF-v1.4", "session_id": "s", "agent": {"name": "claude-code", "version": "2"}, "steps": [
	  {"step_id": 1, "source": "agent", "message": "two edits", "metrics": {"completion_tokens": 9}, "tool_calls": [
	    {"tool_call_id": "a", "function_name": "MultiEdit", "arguments": {"file_path": "/app/x.py", "edits": [
	      {"old_string": "a = 1", "new_string": "a = 2"}, {"old_string": "b", "new_string": "c", "replace_all": true}]}},
	    {"tool_call_id": "b", "function_name": "MultiEdit", "arguments": {"file_path": "/app/y.py", "edits": [{"old_string": "q", "new_string": "r"}]}},
	    {"tool_call_id": "c", "function_name": "MultiEdit", "arguments": {"file_path": "/app/z.py"}}],
	   "observation": {"results": [{"source_call_id": "a", "content": "Applied 2 edits"},
	     {"source_call_id": "b", "content": "String to replace not found in file.", "is_error": true}]}}]}`
	res, err := Import(FormatATIF, "m.json", []byte(doc))
	require.NoError(t, err)
	s := res.Trajectories[0].Steps
	require.Len(t, s, 4)
	assert.Equal(t, "a = 1", *s[0].Old)
	assert.Equal(t, 9, s[0].Tokens)
	assert.Len(t, s[0].Messages, 1, "the agent's message on the first")
	assert.Equal(t, "b", *s[1].Old)
	assert.True(t, s[1].All)
	assert.Equal(t, 0, s[1].Tokens)
	assert.Equal(t, trajectory.KindNoop, s[2].Action)
	assert.Contains(t, s[2].Note, "MultiEdit of /app/y.py not applied")
	assert.Equal(t, trajectory.KindNoop, s[3].Action)
	assert.Contains(t, res.Report.Warnings[0], "steps[0].tool_calls[2]: ")
	require.NoError(t, res.Trajectories[0].Validate())
}
