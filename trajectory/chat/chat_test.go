package chat_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/trajectory/chat"
)

func TestObservationText(t *testing.T) {
	zero, two := 0, 2
	tests := []struct {
		name string
		obs  trajectory.Observation
		want string
	}{
		{"output only", trajectory.Observation{Output: "hi\n", ExitCode: &zero}, "hi\n"},
		{"exit code", trajectory.Observation{Output: "no\n", ExitCode: &two}, "no\n\n[exit code 2]"},
		{"http status, not as exit code", trajectory.Observation{Output: "{}", ExitCode: ptr(404), Status: 404}, "HTTP 404\n{}"},
		{"timeout", trajectory.Observation{ExitCode: &zero, TimedOut: true}, "\n[timed out]"},
		{"action error", trajectory.Observation{ExitCode: ptr(1), Error: "edit: old text not found"}, "\n[exit code 1]\n[error: edit: old text not found]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, chat.ObservationText(tc.obs))
		})
	}
}

func TestLiveMessagesReplaceRecordedResult(t *testing.T) {
	s := trajectory.Step{Action: trajectory.KindShell, Command: "otp", Observation: &trajectory.Observation{Output: "old"}}
	msgs, err := chat.LiveMessages(s, 3, "fresh")
	require.NoError(t, err)
	require.Len(t, msgs, 2)
	var call, result map[string]any
	require.NoError(t, json.Unmarshal(msgs[0], &call))
	require.NoError(t, json.Unmarshal(msgs[1], &result))
	assert.Equal(t, "assistant", call["role"])
	assert.Equal(t, "fresh", result["content"])
	assert.Equal(t, chat.CallID(3), result["tool_call_id"])

	head, err := chat.Head(&task.Task{ID: "t", Instruction: "do it"}, &trajectory.Trajectory{ID: "x"})
	require.NoError(t, err)
	require.Len(t, head, 2)
	assert.Contains(t, string(head[0]), "/workspace", "the default workdir")
}

func ptr[T any](v T) *T { return &v }
