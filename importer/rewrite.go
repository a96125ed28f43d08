package importer

import (
	"github.com/rbx-sandbox/rbx/trajectory"
)

// The importer's passes that resolve its own actions (undo.go,
// background.go, openhands_running.go, notebook.go, applypatch.go) rewrite
// steps in place; these are what they share.

// recorded is the output s's recording holds, "" without one.
func recorded(s trajectory.Step) string {
	if s.Observation == nil {
		return ""
	}
	return s.Observation.Output
}

// recordedCode is the exit code s's recording holds, nil without one.
func recordedCode(s trajectory.Step) *int {
	if s.Observation == nil {
		return nil
	}
	return s.Observation.ExitCode
}

// failedWhenRecorded reports whether s's recording has a non-zero exit
// code.
func failedWhenRecorded(s trajectory.Step) bool {
	c := recordedCode(s)
	return c != nil && *c != 0
}

// replace makes *s the step with, keeping s's tokens and messages: a
// rewritten step is still the turn it came from.
func replace(s *trajectory.Step, with trajectory.Step) {
	with.Tokens, with.Messages = s.Tokens, s.Messages
	*s = with
}

// declinedStep is s as a noop saying that the agent's tool did not apply
// what (its result quoted): the file or state is as it was before.
func declinedStep(s trajectory.Step, what, result string) trajectory.Step {
	n := noop(what + " not applied by the agent's tool: " + quoteLine(result))
	n.Tokens, n.Messages = s.Tokens, s.Messages
	return n
}
