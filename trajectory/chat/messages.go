package chat

import (
	"encoding/json"
	"fmt"

	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/trajectory/tools"
)

// message is an OpenAI chat message.
type message struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type toolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function functionCall `json:"function"`
}

type functionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // JSON text, as OpenAI sends it
}

// CallID is the tool call id of step i in synthesised messages.
func CallID(i int) string { return fmt.Sprintf("call_%d", i) }

// Call returns the assistant message that takes step s as the tool call
// id, with content (nil for none) beside it.
func Call(s trajectory.Step, id string, content *string) (json.RawMessage, error) {
	m, err := call(s, id, content)
	if err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// Result returns the tool message answering call id with content.
func Result(id, content string) json.RawMessage {
	b, _ := json.Marshal(message{Role: "tool", Content: &content, ToolCallID: id}) // strings only: cannot fail
	return b
}

func call(s trajectory.Step, id string, content *string) (message, error) {
	args, err := tools.Arguments(s)
	if err != nil {
		return message{}, err
	}
	return message{Role: "assistant", Content: content, ToolCalls: []toolCall{{ID: id, Type: "function",
		Function: functionCall{Name: string(s.Action), Arguments: string(args)}}}}, nil
}

// synthesise builds the assistant tool call of a step and the tool result
// carrying its recorded observation.
func synthesise(s trajectory.Step, i int) (message, message, error) {
	id := CallID(i)
	call, err := call(s, id, nil)
	if err != nil {
		return message{}, message{}, err
	}
	out := ""
	if o := s.Observation; o != nil {
		out = ObservationText(*o.Recorded())
	}
	return call, message{Role: "tool", Content: &out, ToolCallID: id}, nil
}

func marshalAll(ms ...message) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(ms))
	for i, m := range ms {
		b, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}
