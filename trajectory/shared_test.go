package trajectory_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// TestLargeOutputStoredOnce: a large output that is also its step's tool
// message content is written once, and read back whole into both; small
// ones and messages that differ are written as they are.
func TestLargeOutputStoredOnce(t *testing.T) {
	big := "BEGIN-LOG\n" + strings.Repeat("compiling module 0123456789\n", 2000) // 56 KB
	msg := func(content string) json.RawMessage {
		b, err := json.Marshal(map[string]any{"role": "tool", "tool_call_id": "c1", "content": content})
		require.NoError(t, err)
		return b
	}
	call := json.RawMessage(`{"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]}`)
	tr := &trajectory.Trajectory{ID: "x", Task: "t", Steps: []trajectory.Step{
		{Action: trajectory.KindShell, Command: "make", Observation: &trajectory.Observation{Output: big}, Messages: []json.RawMessage{call, msg(big)}},
		{Action: trajectory.KindShell, Command: "echo hi", Observation: &trajectory.Observation{Output: "hi\n"}, Messages: []json.RawMessage{msg("hi\n")}},
		{Action: trajectory.KindShell, Command: "make", Observation: &trajectory.Observation{Output: big}, Messages: []json.RawMessage{msg(big + "(truncated)")}},
	}}
	for _, jsonl := range []bool{false, true} {
		var buf bytes.Buffer
		if jsonl {
			require.NoError(t, trajectory.WriteLines(&buf, []*trajectory.Trajectory{tr}))
		} else {
			require.NoError(t, trajectory.Write(&buf, tr))
		}
		doc := buf.String()
		assert.Equal(t, 3, strings.Count(doc, "BEGIN-LOG"), "step 0's output once, step 2's twice (its message differs)")
		assert.Equal(t, 1, strings.Count(doc, `"content_from"`))
		assert.Equal(t, msg(big), tr.Steps[0].Messages[1], "writing does not change the trajectory")

		back, err := trajectory.Parse("x.json", buf.Bytes(), jsonl)
		require.NoError(t, err)
		s := back[0].Steps
		assert.Equal(t, big, s[0].Observation.Output)
		assert.JSONEq(t, string(msg(big)), string(s[0].Messages[1]), "the message is whole again")
		assert.JSONEq(t, string(call), string(s[0].Messages[0]))
		assert.JSONEq(t, string(msg("hi\n")), string(s[1].Messages[0]))
		assert.JSONEq(t, string(msg(big+"(truncated)")), string(s[2].Messages[0]))
	}
}

// TestContentFromNeedsTheOutput: a message that stands for its step's
// output in a step without one is an error naming the message.
func TestContentFromNeedsTheOutput(t *testing.T) {
	doc := `{"id": "x", "task": "t", "steps": [
  {"action": "shell", "command": "ls", "messages": [{"role": "tool", "content_from": "observation"}]},
  {"action": "shell", "command": "ls", "observation": {"output": "a"}, "messages": [{"role": "tool", "content_from": "stdout"}]}]}`
	_, err := trajectory.Parse("x.json", []byte(doc), false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "steps[0].messages[0].content_from")
	assert.Contains(t, err.Error(), "steps[1].messages[0].content_from")
}
