package server

import (
	"net/http"
	"strings"

	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/trajectory/tools"
)

// toStep turns a tool call into a trajectory step, or explains in a
// bad_tool_call why it cannot. vars are the variables bound so far, so
// {{vars.X}} references to captured values validate; kinds are the
// task's tools (see toolsOf). A function, not a
// method of ToolCall: the type is api's wire data, the parsing the
// server's.
func toStep(tc ToolCall, vars map[string]string, kinds []trajectory.Kind) (trajectory.Step, *APIError) {
	name, raw := tc.Name, tc.Arguments
	if tc.Function != nil {
		name, raw = tc.Function.Name, tc.Function.Arguments
	}
	st, err := tools.Parse(name, raw, tools.WithVars(vars), tools.WithKinds(kinds))
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), tools.ErrMalformed.Error()+": ")
		return trajectory.Step{}, apiErr(http.StatusBadRequest, CodeBadToolCall, "%s", msg).With("tool", name)
	}
	return st, nil
}

// kindsOf is the actions a policy may call in e's task: keystrokes for a
// task whose agent types into a terminal, rbx's actions otherwise.
func kindsOf(e *Entry) []trajectory.Kind { return tools.For(e.Task.TypesKeys()) }

// toolsOf is the function schemas of e's task's actions.
func toolsOf(e *Entry) []tools.Tool { return tools.SchemasOf(kindsOf(e)) }
