package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/rbx-sandbox/rbx/trajectory"
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

// toolKinds are the actions a policy may call (noop teaches nothing).
var toolKinds = []trajectory.Kind{trajectory.KindShell, trajectory.KindWriteFile, trajectory.KindReadFile,
	trajectory.KindEditFile, trajectory.KindHTTP}

// commonStepFields are trajectory step members that are not arguments.
var commonStepFields = []string{"action", "observation", "volatile", "checkpoint", "compare", "tokens", "messages"}

// toStep turns a tool call into a trajectory step, or explains in a
// bad_tool_call why it cannot. vars are the variables bound so far, so
// {{vars.X}} references to captured values validate.
func (tc ToolCall) toStep(task string, vars map[string]string) (trajectory.Step, *APIError) {
	name, raw := tc.Name, tc.Arguments
	if tc.Function != nil {
		name, raw = tc.Function.Name, tc.Function.Arguments
	}
	bad := func(format string, a ...any) (trajectory.Step, *APIError) {
		return trajectory.Step{}, apiErr(http.StatusBadRequest, CodeBadToolCall, format, a...).with("tool", name)
	}
	kind := trajectory.Kind(name)
	if !slices.Contains(toolKinds, kind) {
		return bad("unknown tool %q: expected one of shell, write_file, read_file, edit_file, http", name)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' { // OpenAI: arguments is a string of JSON
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return bad("arguments: %v", err)
		}
		raw = []byte(s)
	}
	args := map[string]json.RawMessage{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &args); err != nil {
			return bad("arguments: expected a JSON object: %v", err)
		}
	}
	allowed := slices.DeleteFunc(kind.Fields(), func(f string) bool { return slices.Contains(commonStepFields, f) })
	for k := range args {
		if !slices.Contains(allowed, k) {
			return bad("tool %s has no argument %q (it takes %s)", name, k, strings.Join(allowed, ", "))
		}
	}
	args["action"], _ = json.Marshal(name)
	doc, _ := json.Marshal(args)
	var st trajectory.Step
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return bad("arguments: %v", err)
	}
	check := &trajectory.Trajectory{ID: "tool_call", Task: task, Vars: vars, Steps: []trajectory.Step{st}}
	if err := check.Validate(); err != nil {
		msg := strings.ReplaceAll(err.Error(), "steps[0].", "")
		return bad("%s", msg)
	}
	return st, nil
}
