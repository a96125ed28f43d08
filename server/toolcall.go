package server

import (
	"net/http"
	"strings"

	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/trajectory/tools"
)

// toStep turns a tool call into a trajectory step, or explains in a
// bad_tool_call why it cannot. vars are the variables bound so far, so
// {{vars.X}} references to captured values validate. A function, not a
// method of ToolCall: the type is api's wire data, the parsing the
// server's.
func toStep(tc ToolCall, vars map[string]string) (trajectory.Step, *APIError) {
	name, raw := tc.Name, tc.Arguments
	if tc.Function != nil {
		name, raw = tc.Function.Name, tc.Function.Arguments
	}
	st, err := tools.Parse(name, raw, tools.WithVars(vars))
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), tools.ErrMalformed.Error()+": ")
		return trajectory.Step{}, apiErr(http.StatusBadRequest, CodeBadToolCall, "%s", msg).With("tool", name)
	}
	return st, nil
}
