package sft

import (
	"encoding/json"
	"fmt"

	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Head returns the conversation before the first step: the trajectory's
// recorded messages, or a system prompt and the task's instruction.
func Head(tk *task.Task, tr *trajectory.Trajectory) ([]json.RawMessage, error) { return head(tk, tr) }

// Arguments returns a step's action fields as OpenAI tool-call arguments,
// named as in the trajectory format (the inverse of a tool call).
func Arguments(s trajectory.Step) map[string]any { return arguments(s) }

// LiveMessages returns the messages step i adds to a conversation — its
// recorded messages when it has them, else a synthesised assistant tool
// call and tool result — with every tool result's content replaced by
// live, the observation of the step as it was just executed (a fresh OTP,
// not the recorded one). A noop step yields its note, or nothing.
func LiveMessages(s trajectory.Step, i int, live string) ([]json.RawMessage, error) {
	if len(s.Messages) == 0 && s.Action != trajectory.KindNoop {
		call, _, err := synthesise(s, i)
		if err != nil {
			return nil, err
		}
		return marshalAll(call, message{Role: "tool", Content: &live, ToolCallID: call.ToolCalls[0].ID})
	}
	msgs, _, err := stepMessages(s, i)
	if err != nil {
		return nil, err
	}
	out := make([]json.RawMessage, len(msgs))
	for j, m := range msgs {
		var obj map[string]any
		if err := json.Unmarshal(m, &obj); err != nil {
			return nil, fmt.Errorf("step %d message %d: %w", i, j, err)
		}
		if obj["role"] != "tool" {
			out[j] = m
			continue
		}
		obj["content"] = live
		if out[j], err = json.Marshal(obj); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Observation formats a tool result the way synthesised examples do: the
// HTTP status line of an http step, the output, and a non-zero exit code.
func Observation(kind trajectory.Kind, output string, code int) string {
	out := ""
	if kind == trajectory.KindHTTP && code != 0 {
		out = fmt.Sprintf("HTTP %d\n", code)
	}
	out += output
	if kind != trajectory.KindHTTP && code != 0 {
		out += fmt.Sprintf("\n[exit code %d]", code)
	}
	return out
}
