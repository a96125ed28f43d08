package importer

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// miniATIF is a mini-swe-agent run as Harbor's converter writes it
// (ATIF-v1.7): a text-mode turn (one fenced block, no tool calls), a
// tool-calling turn with two calls, results without source_call_id in
// the agent's step, in mini-swe-agent's observation template; a format
// error turn. Written for rbx from Harbor's converter and
// mini-swe-agent's templates.
const miniATIF = `{"schema_version": "ATIF-v1.7", "session_id": "m-1",
 "agent": {"name": "mini-swe-agent", "version": "2.0.0", "model_name": "x"},
 "steps": [
  {"step_id": 1, "source": "system", "message": "You are a helpful assistant."},
  {"step_id": 2, "source": "user", "message": "Fix the bug."},
  {"step_id": 3, "source": "agent", "message": "THOUGHT: look.\n\n` + "```mswea_bash_command\\nls /repo\\n```" + `",
   "observation": {"results": [{"content": "<returncode>0</returncode>\n<output>\na.py\nb.py\n</output>"}]}},
  {"step_id": 4, "source": "agent", "message": "THOUGHT: two at once", "tool_calls": [
     {"tool_call_id": "call_1", "function_name": "bash", "arguments": {"command": "cat a.py"}},
     {"tool_call_id": "call_2", "function_name": "bash", "arguments": {"command": "false"}}],
   "observation": {"results": [{"content": "<returncode>0</returncode>\n<output>\nx = 1\n</output>"},
     {"content": "<returncode>1</returncode>\n<output>\n</output>"}]}},
  {"step_id": 5, "source": "agent", "message": "no action here",
   "observation": {"results": [{"content": "Please always provide EXACTLY ONE action in triple backticks."}]}}
 ]}`

func TestImportMiniSWEAgentATIF(t *testing.T) {
	res, err := Import(FormatAuto, "mini.json", []byte(miniATIF))
	require.NoError(t, err)
	s := res.Trajectories[0].Steps
	require.Len(t, s, 4)
	assert.Equal(t, []trajectory.Kind{"shell", "shell", "shell", "noop"}, []trajectory.Kind{s[0].Action, s[1].Action, s[2].Action, s[3].Action})
	assert.Equal(t, "ls /repo", s[0].Command, "the text-mode turn's block")
	require.NotNil(t, s[0].Observation)
	assert.Equal(t, "a.py\nb.py\n", s[0].Observation.Output)
	assert.Equal(t, 0, *s[0].Observation.ExitCode)
	assert.Equal(t, "x = 1\n", s[1].Observation.Output, "results without ids go to the step's calls in order")
	assert.Equal(t, 1, *s[2].Observation.ExitCode)
	assert.Empty(t, res.Report.UnknownTools)
	require.NoError(t, res.Trajectories[0].Validate())
}

// TestForeignShell: tools named "shell" whose arguments are not rbx's own
// (Codex's argv command, workdir and timeout_ms; a "cmd"), and argv
// commands under any shell rule.
func TestForeignShell(t *testing.T) {
	tests := []struct {
		name    string
		call    call
		command string
		cwd     string
		timeout string
	}{
		{"codex", call{Name: "shell", Args: map[string]any{"command": []any{"bash", "-lc", "ls -la | head"}, "workdir": "/repo", "timeout_ms": 120000.0}}, "ls -la | head", "/repo", "2m0s"},
		{"argv", call{Name: "shell", Args: map[string]any{"command": []any{"grep", "-n", "a b", "f.py"}}}, "grep -n 'a b' f.py", "", "0s"},
		{"cmd", call{Name: "shell", Args: map[string]any{"cmd": "make test"}}, "make test", "", "0s"},
		{"native", call{Name: "shell", Args: map[string]any{"command": "echo hi", "cwd": "/w", "timeout": "30s"}}, "echo hi", "/w", "30s"},
		{"exec_command", call{Name: "bash", Args: map[string]any{"command": []any{"/bin/sh", "-c", "true"}}}, "true", "", "0s"},
	}
	m := &mapper{tools: DefaultTools(), rep: &Report{}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := m.step(tc.call)
			require.Equal(t, trajectory.KindShell, s.Action, s.Note)
			assert.Equal(t, tc.command, s.Command)
			assert.Equal(t, tc.cwd, s.Cwd)
			assert.Equal(t, tc.timeout, s.Timeout.D().String())
		})
	}
}
