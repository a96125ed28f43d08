package openenv

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Frame types, as OpenEnv's clients send and expect them.
const (
	typeReset       = "reset"
	typeStep        = "step"
	typeState       = "state"
	typeClose       = "close"
	typeMCP         = "mcp"
	typeObservation = "observation"
	typeError       = "error"
)

// inFrame is a client's frame.
type inFrame struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data,omitempty"`
}

// outFrame is the server's.
type outFrame struct {
	Type string `json:"type"`
	Data any    `json:"data"`
}

// observation is an observation frame's data.
type observation struct {
	Observation map[string]any `json:"observation"`
	Reward      *float64       `json:"reward"`
	Done        bool           `json:"done"`
}

// errorFrame builds an error frame from e.
func errorFrame(e *Error) outFrame {
	data := map[string]any{"message": e.Message, "code": e.Code}
	for k, v := range e.Data {
		data[k] = v
	}
	return outFrame{Type: typeError, Data: data}
}

// parseReset reads a reset frame's data: an object (or nothing), whose
// task, checkpoint, group and seed rbx reads; other keys are ignored.
func parseReset(raw json.RawMessage) (ResetData, *Error) {
	var d ResetData
	if len(raw) == 0 || string(raw) == "null" {
		return d, nil
	}
	if err := json.Unmarshal(raw, &d.Raw); err != nil {
		return d, Errorf(CodeValidation, "reset data: expected an object: %v", err)
	}
	if v, ok := d.Raw["task"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &d.Task); err != nil {
			return d, Errorf(CodeValidation, "reset data: task: expected a string, got %s", clip(v))
		}
	}
	if v, ok := d.Raw["checkpoint"]; ok && string(v) != "null" {
		d.Checkpoint = v
	}
	for _, key := range []string{"group", "seed"} {
		if v, ok := d.Raw[key]; ok && string(v) != "null" {
			k, err := keyText(v)
			if err != nil {
				return d, Errorf(CodeValidation, "reset data: %s: %v", key, err)
			}
			d.GroupKey = key + ":" + k
			break
		}
	}
	return d, nil
}

// keyText is a group key as text: a string, or a number as written.
func keyText(v json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s, nil
	}
	var n json.Number
	dec := json.NewDecoder(strings.NewReader(string(v)))
	dec.UseNumber()
	if dec.Decode(&n) == nil {
		if i, err := strconv.ParseInt(n.String(), 10, 64); err == nil {
			return strconv.FormatInt(i, 10), nil
		}
		return n.String(), nil
	}
	return "", fmt.Errorf("expected a string or a number, got %s", clip(v))
}

// action is a step frame's data in any of its forms.
type action struct {
	Type      string          `json:"type"`
	ToolName  string          `json:"tool_name"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// parseAction reads a step's data: {"type": "list_tools"},
// {"type": "call_tool", "tool_name", "arguments"} or {"name", "arguments"}.
// list is set for list_tools.
func parseAction(raw json.RawMessage) (call ToolCall, list bool, e *Error) {
	var a action
	if err := json.Unmarshal(raw, &a); err != nil {
		return call, false, Errorf(CodeValidation, "step data: expected an action object: %v", err)
	}
	switch {
	case a.Type == "list_tools":
		return call, true, nil
	case a.Type == "call_tool" && a.ToolName != "":
		return ToolCall{Name: a.ToolName, Arguments: a.Arguments}, false, nil
	case a.Type == "call_tool":
		return call, false, Errorf(CodeValidation, "step data: call_tool: tool_name: required")
	case a.Name != "":
		return ToolCall{Name: a.Name, Arguments: a.Arguments}, false, nil
	}
	return call, false, Errorf(CodeValidation, `step data: expected {"name", "arguments"}, {"type": "call_tool", "tool_name", "arguments"} or {"type": "list_tools"}`)
}

// clip shortens a raw value for a message.
func clip(v json.RawMessage) string {
	if len(v) > 60 {
		return string(v[:60]) + "…"
	}
	return string(v)
}
