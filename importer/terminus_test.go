package importer

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// terminus2ATIF is a Terminus-2 run as Harbor writes it (ATIF-v1.5): each
// turn's keystrokes as bash_command calls, one observation for the turn
// without a source_call_id, Terminus' headers around the terminal, a cut
// long output, warnings, and the task marked complete. Written for rbx
// from Harbor's terminus_2 agent.
const terminus2ATIF = `{"schema_version": "ATIF-v1.5", "session_id": "t2-1",
 "agent": {"name": "terminus-2", "version": "2.0.0", "model_name": "x"},
 "steps": [
  {"step_id": 1, "source": "system", "message": "You are an AI assistant tasked with solving command-line tasks in a Linux environment."},
  {"step_id": 2, "source": "user", "message": "Create hello.txt.\n\nCurrent terminal state:\nroot@4f3a9c2b1e0d:/app# "},
  {"step_id": 3, "source": "agent", "message": "{\"analysis\": \"empty\", \"plan\": \"write\"}", "metrics": {"completion_tokens": 40},
   "tool_calls": [
     {"tool_call_id": "call_0_1", "function_name": "bash_command", "arguments": {"keystrokes": "echo hello > hello.txt\n", "duration": 0.1}},
     {"tool_call_id": "call_0_2", "function_name": "bash_command", "arguments": {"keystrokes": "cat hello.txt\n", "duration": 0.1}}],
   "observation": {"results": [{"content": "New Terminal Output:\n\nroot@4f3a9c2b1e0d:/app# echo hello > hello.txt\nroot@4f3a9c2b1e0d:/app# cat hello.txt\nhello\nroot@4f3a9c2b1e0d:/app# "}]}},
  {"step_id": 4, "source": "agent", "message": "{}",
   "tool_calls": [{"tool_call_id": "call_1_1", "function_name": "bash_command", "arguments": {"keystrokes": "seq 1 100000\n", "duration": 1.0}}],
   "observation": {"results": [{"content": "Previous response had warnings:\nWARNINGS: - Extra text detected after JSON object\n\nNew Terminal Output:\n\n1\n2\n[... output limited to 10000 bytes; 578880 interior bytes omitted ...]\n99999\n100000\nroot@4f3a9c2b1e0d:/app# "}]}},
  {"step_id": 5, "source": "agent", "message": "{}",
   "tool_calls": [{"tool_call_id": "call_2_1", "function_name": "bash_command", "arguments": {"keystrokes": "C-c", "duration": 0.5}},
     {"tool_call_id": "call_2_task_complete", "function_name": "mark_task_complete", "arguments": {}}],
   "observation": {"results": [{"content": "Current terminal state:\nNew Terminal Output:\n\nroot@4f3a9c2b1e0d:/app# ^C\nroot@4f3a9c2b1e0d:/app# \n\nAre you sure you want to mark the task as complete? This will trigger your solution to be graded and you won't be able to make any further corrections. If so, include \"task_complete\": true in your JSON response again."}]}}
 ]}`

func TestImportTerminus2ATIF(t *testing.T) {
	res, err := Import(FormatAuto, "t2.json", []byte(terminus2ATIF))
	require.NoError(t, err)
	tr := res.Trajectories[0]
	s := tr.Steps
	require.Len(t, s, 5)
	assert.Equal(t, []trajectory.Kind{"keys", "keys", "keys", "keys", "noop"}, []trajectory.Kind{s[0].Action, s[1].Action, s[2].Action, s[3].Action, s[4].Action})
	assert.Equal(t, "echo hello > hello.txt\n", s[0].Keys)
	assert.Equal(t, "100ms", s[0].Duration.D().String())
	assert.Nil(t, s[0].Observation, "the turn's one observation is its last call's")
	assert.Equal(t, "root@4f3a9c2b1e0d:/app# echo hello > hello.txt\nroot@4f3a9c2b1e0d:/app# cat hello.txt\nhello\nroot@4f3a9c2b1e0d:/app# ", s[1].Observation.Output)
	assert.Equal(t, "1\n2\n\n99999\n100000\nroot@4f3a9c2b1e0d:/app# ", s[2].Observation.Output, "warnings and the cut mark dropped")
	assert.Equal(t, "C-c", s[3].Keys)
	assert.Equal(t, "root@4f3a9c2b1e0d:/app# ^C\nroot@4f3a9c2b1e0d:/app# ", s[3].Observation.Output, "the completion question dropped")
	assert.Equal(t, 40, s[0].Tokens)
	assert.Len(t, tr.Messages, 2, "system prompt and instruction for prefill")
	assert.Empty(t, res.Report.UnknownTools)
	require.NoError(t, tr.Validate())
}

// TestImportTerminusChat: Terminus' turns in a chat log (its JSON replies
// in assistant messages, the terminal in the next user message), as
// terminal-bench's Terminus-1 (is_blocking, timeout_sec) and Terminus-2
// (duration, task_complete) write them; written for rbx from their
// response schemas.
func TestImportTerminusChat(t *testing.T) {
	msgs := `[{"role": "user", "content": "Create hello.txt.\n\nCurrent terminal state:\nroot@ab12:/app# "},
	 {"role": "assistant", "content": "{\"state_analysis\": \"empty\", \"explanation\": \"write it\", \"commands\": [{\"keystrokes\": \"echo hi > hello.txt\\n\", \"is_blocking\": true, \"timeout_sec\": 3}, {\"keystrokes\": \"cat hello.txt\\n\", \"is_blocking\": true, \"timeout_sec\": 3}], \"is_task_complete\": false}"},
	 {"role": "user", "content": "root@ab12:/app# echo hi > hello.txt\nroot@ab12:/app# cat hello.txt\nhi\nroot@ab12:/app# "},
	 {"role": "assistant", "content": "Done.\n{\"analysis\": \"ok\", \"plan\": \"stop\", \"commands\": [{\"keystrokes\": \"C-c\", \"duration\": 0.5}], \"task_complete\": true}"},
	 {"role": "user", "content": "Current terminal state:\nNew Terminal Output:\n\nroot@ab12:/app# ^C\nroot@ab12:/app# \n\nAre you sure you want to mark the task as complete?"},
	 {"role": "assistant", "content": "I am not sure what to do next."}]`
	res, err := Import(FormatOpenAI, "t.json", []byte(msgs))
	require.NoError(t, err)
	s := res.Trajectories[0].Steps
	require.Len(t, s, 5)
	assert.Equal(t, []trajectory.Kind{"keys", "keys", "keys", "noop", "noop"}, []trajectory.Kind{s[0].Action, s[1].Action, s[2].Action, s[3].Action, s[4].Action})
	assert.Equal(t, "3s", s[0].Duration.D().String(), "Terminus-1's timeout_sec")
	assert.Nil(t, s[0].Observation)
	assert.Equal(t, "root@ab12:/app# echo hi > hello.txt\nroot@ab12:/app# cat hello.txt\nhi\nroot@ab12:/app# ", s[1].Observation.Output)
	assert.Equal(t, "root@ab12:/app# ^C\nroot@ab12:/app# ", s[2].Observation.Output, "the last keys, not the completion, has the terminal")
	assert.Equal(t, "I am not sure what to do next.", s[4].Note)
	require.NoError(t, res.Trajectories[0].Validate())
}

// TestTerminusLogs: terminal-bench's Terminus episode folders read as
// the chat they hold: each turn's keystrokes, the next prompt (the
// terminal after them) their last command's; a final episode with no
// response ends the run; a gap is an error.
func TestTerminusLogs(t *testing.T) {
	dir := t.TempDir()
	write := func(ep int, name, content string) {
		d := filepath.Join(dir, fmt.Sprintf("episode-%d", ep))
		require.NoError(t, os.MkdirAll(d, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(d, name), []byte(content), 0o644))
	}
	write(0, "prompt.txt", "Create hello.txt.\n\nCurrent terminal state:\nroot@ab12:/app# ")
	write(0, "response.json", `{"state_analysis": "empty", "explanation": "write", "commands": [{"keystrokes": "echo hi > hello.txt\n", "is_blocking": true, "timeout_sec": 2}], "is_task_complete": false}`)
	write(1, "prompt.txt", "root@ab12:/app# echo hi > hello.txt\nroot@ab12:/app# ")
	write(1, "response.json", `{"state_analysis": "done", "explanation": "check", "commands": [{"keystrokes": "cat hello.txt\n", "is_blocking": true, "timeout_sec": 2}], "is_task_complete": true}`)
	write(2, "prompt.txt", "root@ab12:/app# cat hello.txt\nhi\nroot@ab12:/app# ")
	require.True(t, IsTerminusLogs(dir))
	data, err := TerminusLogsChat(dir)
	require.NoError(t, err)
	res, err := Import(FormatOpenAI, dir, data)
	require.NoError(t, err)
	s := res.Trajectories[0].Steps
	require.Len(t, s, 3)
	assert.Equal(t, []trajectory.Kind{"keys", "keys", "noop"}, []trajectory.Kind{s[0].Action, s[1].Action, s[2].Action})
	assert.Equal(t, "root@ab12:/app# echo hi > hello.txt\nroot@ab12:/app# ", s[0].Observation.Output)
	assert.Equal(t, "root@ab12:/app# cat hello.txt\nhi\nroot@ab12:/app# ", s[1].Observation.Output)
	assert.Len(t, res.Trajectories[0].Messages, 1, "the first prompt, for prefill")

	require.NoError(t, os.RemoveAll(filepath.Join(dir, "episode-1")))
	_, err = TerminusLogsChat(dir)
	assert.ErrorContains(t, err, "episode-1 missing")
	assert.False(t, IsTerminusLogs(t.TempDir()))
}
