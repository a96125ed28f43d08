package importer

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/trajectory"
)

func ohEvents(t *testing.T, runs ...[]any) []byte {
	t.Helper()
	var evs []map[string]any
	for i, r := range runs {
		id := 2*i + 1
		evs = append(evs,
			map[string]any{"id": id, "source": "agent", "action": "run", "args": map[string]any{"command": r[0], "is_input": r[1]}},
			map[string]any{"id": id + 1, "source": "agent", "observation": "run", "cause": id, "content": r[3],
				"extras": map[string]any{"metadata": map[string]any{"exit_code": r[2]}}})
	}
	data, err := json.Marshal(evs)
	require.NoError(t, err)
	return data
}

// TestOpenHandsLeftRunning: what OpenHands' bash session did with a
// command the agent left running, mapped step by step; keystrokes typed
// into it are refused at import, naming the event.
func TestOpenHandsLeftRunning(t *testing.T) {
	data := ohEvents(t,
		[]any{"C-c", true, 0, "ERROR: No previous running command to interact with."},
		[]any{"npm run dev", false, -1, "ready on :3000\n[The command has no new output after 5 seconds.]"},
		[]any{"", true, -1, "[The command has no new output after 30 seconds.]"},
		[]any{"C-c", true, 130, "^C"},
		[]any{"make", false, -1, "[The command timed out after 120 seconds.]"},
		[]any{"", false, 2, "make: *** [all] Error 2"},
	)
	res, err := Import(FormatOpenHands, "oh.json", data)
	require.NoError(t, err)
	s := res.Trajectories[0].Steps
	require.Len(t, s, 6)
	assert.Equal(t, trajectory.KindNoop, s[0].Action, "C-c with nothing running")
	assert.Contains(t, s[1].Command, "'npm run dev'")
	assert.Contains(t, s[1].Command, "grep -qF -- 'ready on :3000'")
	assert.Contains(t, s[1].Command, "-lt 50 ]", "waits at most the 5 s OpenHands waited")
	assert.Equal(t, trajectory.KindNoop, s[2].Action, "a poll that saw it running")
	assert.Contains(t, s[3].Command, "kill -INT -- -$p")
	assert.NotContains(t, s[4].Command, "grep", "nothing printed: nothing to wait for")
	require.NotNil(t, s[5].Observation)
	assert.Equal(t, 2, *s[5].Observation.ExitCode, "the poll that saw make end waits for its status")

	// Input typed into the program (a REPL): it runs on the terminal, as
	// in OpenHands' pane, and everything sent to it is keys.
	res, err = Import(FormatOpenHands, "oh.json", ohEvents(t,
		[]any{"python3", false, -1, ">>> \n[The command has no new output after 10 seconds.]"},
		[]any{"print(1)\n", true, -1, "1\n>>> \n[The command has no new output after 10 seconds.]"},
		[]any{"C-d", true, 0, "\n[The command completed with exit code 0.]"},
		[]any{"ls", false, 0, "a.txt"}))
	require.NoError(t, err)
	s = res.Trajectories[0].Steps
	require.Len(t, s, 4)
	assert.Equal(t, []trajectory.Kind{"keys", "keys", "keys", "shell"}, []trajectory.Kind{s[0].Action, s[1].Action, s[2].Action, s[3].Action})
	assert.Equal(t, "python3\n", s[0].Keys)
	assert.Equal(t, ">>>", s[0].Observation.Output, "OpenHands' note dropped")
	assert.Equal(t, "10s", s[0].Duration.D().String())
	assert.Equal(t, "print(1)\n", s[1].Keys)
	assert.Equal(t, "C-d", s[2].Keys)
}

// TestLeftRunningInChat: the same from OpenHands' tool calls in an OpenAI
// chat file: execute_bash whose result says the session stopped waiting,
// an is_input C-c, a command after it.
func TestLeftRunningInChat(t *testing.T) {
	msgs := `[{"role": "user", "content": "serve it"},
	 {"role": "assistant", "content": "", "tool_calls": [{"id": "a", "type": "function", "function": {"name": "execute_bash", "arguments": "{\"command\": \"python3 -m http.server\"}"}}]},
	 {"role": "tool", "tool_call_id": "a", "content": "Serving HTTP on 0.0.0.0 port 8000 ...\n[The command has no new output after 30 seconds. You may wait longer to see additional output by sending empty command '', send other commands to interact with the current process, or send keys to interrupt/kill the command.]"},
	 {"role": "assistant", "content": "", "tool_calls": [{"id": "b", "type": "function", "function": {"name": "execute_bash", "arguments": "{\"command\": \"C-c\", \"is_input\": \"true\"}"}}]},
	 {"role": "tool", "tool_call_id": "b", "content": "^C"},
	 {"role": "assistant", "content": "", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "execute_bash", "arguments": "{\"command\": \"ls\"}"}}]},
	 {"role": "tool", "tool_call_id": "c", "content": "index.html"}]`
	res, err := Import(FormatOpenAI, "oh.json", []byte(msgs))
	require.NoError(t, err)
	s := res.Trajectories[0].Steps
	require.Len(t, s, 3)
	assert.Contains(t, s[0].Command, "'python3 -m http.server'")
	assert.Contains(t, s[0].Command, "grep -qF -- 'Serving HTTP on 0.0.0.0 port 8000 ...'")
	assert.Contains(t, s[1].Command, "kill -INT")
	assert.Equal(t, "ls", s[2].Command)
	assert.Empty(t, res.Report.Warnings)
}
