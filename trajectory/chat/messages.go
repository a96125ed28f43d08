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

// synthesise builds the assistant tool call of a step and the tool result
// carrying its recorded observation.
func synthesise(s trajectory.Step, i int) (message, message, error) {
	args, err := tools.Arguments(s)
	if err != nil {
		return message{}, message{}, err
	}
	id := fmt.Sprintf("call_%d", i)
	call := message{Role: "assistant", ToolCalls: []toolCall{{ID: id, Type: "function",
		Function: functionCall{Name: string(s.Action), Arguments: string(args)}}}}
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
