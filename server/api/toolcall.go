package api

import "encoding/json"

// ToolCall is one OpenAI tool call: {"name", "arguments"}, or the full
// {"id", "type": "function", "function": {"name", "arguments"}} form.
// Arguments may be a JSON object or, as OpenAI sends them, a string
// holding one.
type ToolCall struct {
	ID        string          `json:"id,omitempty"`
	Type      string          `json:"type,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Function  *struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function,omitempty"`
}
