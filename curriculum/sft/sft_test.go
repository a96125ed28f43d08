package sft

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

func TestExamplesSynthesiseMessages(t *testing.T) {
	zero, one, content := 0, 1, "echo hi\n"
	tr := &trajectory.Trajectory{ID: "tr", Steps: []trajectory.Step{
		{Action: trajectory.KindShell, Command: "ls", Observation: &trajectory.Observation{Output: "a\n", ExitCode: &zero}},
		{Action: trajectory.KindNoop, Note: "thinking"},
		{Action: trajectory.KindWriteFile, Path: "run.sh", Content: &content},
		{Action: trajectory.KindShell, Command: "./run.sh", Observation: &trajectory.Observation{Output: "hi\n", ExitCode: &one}},
	}}
	tk := &task.Task{ID: "tk", Instruction: "Write run.sh"}
	exs, err := Examples(tk, tr, 1, 4)
	require.NoError(t, err)
	require.Len(t, exs, 2, "the noop teaches no action")
	ex := exs[1]
	assert.Equal(t, 3, ex.Metadata.Step)
	var roles []string
	for _, m := range ex.Messages {
		var v struct{ Role string }
		require.NoError(t, json.Unmarshal(m, &v))
		roles = append(roles, v.Role)
	}
	// system, user, ls call+result, noop note, write call+result, target call
	assert.Equal(t, []string{"system", "user", "assistant", "tool", "assistant", "assistant", "tool", "assistant"}, roles)
	assert.JSONEq(t, `{"role":"assistant","content":null,"tool_calls":[{"id":"call_3","type":"function","function":{"name":"shell","arguments":"{\"command\":\"./run.sh\"}"}}]}`, string(ex.Messages[7]))
	assert.Contains(t, string(ex.Messages[3]), `"tool_call_id":"call_0"`)

	var buf bytes.Buffer
	n, err := Write(&buf, exs)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	assert.Len(t, strings.Split(strings.TrimSpace(buf.String()), "\n"), 2)

	_, err = Examples(tk, tr, 3, 9)
	assert.ErrorIs(t, err, ErrRange)
}
