// Package chat renders a trajectory as an OpenAI chat conversation: the
// head (system prompt and instruction, or the recorded messages), each
// step's assistant tool call and tool result, and the text of an
// observation. Server, policy, SFT export and importers share it.
package chat

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Head returns the conversation before the first step: the trajectory's
// recorded messages, or a system prompt and the task's instruction.
func Head(tk *task.Task, tr *trajectory.Trajectory) ([]json.RawMessage, error) {
	if len(tr.Messages) > 0 {
		return append([]json.RawMessage(nil), tr.Messages...), nil
	}
	sys := fmt.Sprintf("You are an agent working in a sandbox (workdir %s). Use the tools to complete the task.", provision.Spec(tk).Workdir)
	return marshalAll(message{Role: "system", Content: &sys}, message{Role: "user", Content: &tk.Instruction})
}

// StepMessages returns the messages step i adds to the conversation and
// its target (the assistant message that takes the action), or nil: the
// recorded messages when it has them, else a synthesised assistant tool
// call and tool result; a noop yields its note as an assistant message, or
// nothing.
func StepMessages(s trajectory.Step, i int) ([]json.RawMessage, json.RawMessage, error) {
	if len(s.Messages) > 0 {
		for _, m := range s.Messages {
			var probe struct{ Role string }
			if err := json.Unmarshal(m, &probe); err == nil && probe.Role == "assistant" {
				return s.Messages, m, nil
			}
		}
		return s.Messages, nil, nil
	}
	if s.Action == trajectory.KindNoop {
		if s.Note == "" {
			return nil, nil, nil
		}
		msgs, err := marshalAll(message{Role: "assistant", Content: &s.Note})
		return msgs, nil, err
	}
	call, result, err := synthesise(s, i)
	if err != nil {
		return nil, nil, err
	}
	msgs, err := marshalAll(call, result)
	if err != nil {
		return nil, nil, err
	}
	return msgs, msgs[0], nil
}

// LiveMessages returns the messages step i adds to a conversation, as
// StepMessages does, with every tool result's content replaced by live,
// the observation of the step as it was just executed (a fresh OTP, not
// the recorded one).
func LiveMessages(s trajectory.Step, i int, live string) ([]json.RawMessage, error) {
	if len(s.Messages) == 0 && s.Action != trajectory.KindNoop {
		call, _, err := synthesise(s, i)
		if err != nil {
			return nil, err
		}
		return marshalAll(call, message{Role: "tool", Content: &live, ToolCallID: call.ToolCalls[0].ID})
	}
	msgs, _, err := StepMessages(s, i)
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

// ObservationText formats an observation as the tool result a model
// reads: the HTTP status line of an http step, the output, then a
// non-zero exit code of any other step, a timeout and why the action could
// not be carried out.
func ObservationText(o trajectory.Observation) string {
	var b strings.Builder
	if o.Status != 0 {
		fmt.Fprintf(&b, "HTTP %d\n", o.Status)
	}
	b.WriteString(o.Output)
	if o.Status == 0 && o.ExitCode != nil && *o.ExitCode != 0 {
		fmt.Fprintf(&b, "\n[exit code %d]", *o.ExitCode)
	}
	if o.TimedOut {
		b.WriteString("\n[timed out]")
	}
	if o.Error != "" {
		fmt.Fprintf(&b, "\n[error: %s]", o.Error)
	}
	return b.String()
}
