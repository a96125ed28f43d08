package server

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/trajectory/tools"
)

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

// toStep turns a tool call into a trajectory step, or explains in a
// bad_tool_call why it cannot. vars are the variables bound so far, so
// {{vars.X}} references to captured values validate.
func (tc ToolCall) toStep(vars map[string]string) (trajectory.Step, *APIError) {
	name, raw := tc.Name, tc.Arguments
	if tc.Function != nil {
		name, raw = tc.Function.Name, tc.Function.Arguments
	}
	st, err := tools.Parse(name, raw, tools.WithVars(vars))
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), tools.ErrMalformed.Error()+": ")
		return trajectory.Step{}, apiErr(http.StatusBadRequest, CodeBadToolCall, "%s", msg).with("tool", name)
	}
	return st, nil
}
