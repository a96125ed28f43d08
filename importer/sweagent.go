package importer

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// sweTraj is the part of a SWE-agent .traj file the importer reads.
type sweTraj struct {
	History    json.RawMessage `json:"history"`
	Trajectory []struct {
		Action      string `json:"action"`
		Observation string `json:"observation"`
	} `json:"trajectory"`
}

// sweStatus is the status footer SWE-agent appends to every observation.
var sweStatus = regexp.MustCompile(`(?s)\n?\(Open file: [^\n]*\)\n\(Current directory: [^\n]*\)\n?bash-\$\s*$`)

// importSWEAgent reads a SWE-agent .traj: its "history" is chat messages
// (function-calling agents carry tool_calls; text agents an "action"
// string, run as a shell line, except "submit").
func importSWEAgent(data []byte, id string, c config, rep *Report) (*trajectory.Trajectory, error) {
	var st sweTraj
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("%w: expected a SWE-agent .traj object: %w", ErrFormat, err)
	}
	b := newBuilder(c, rep)
	observe := func(s *trajectory.Step, result string) {
		recordResult(s, strings.TrimRight(sweStatus.ReplaceAllString(result, ""), "\r\n"))
	}
	if len(st.History) > 0 {
		msgs, err := decodeMessages(st.History)
		if err != nil {
			return nil, err
		}
		b.chat(msgs, chatHooks{observe: observe, textCalls: sweTextCalls})
		return b.finish(id)
	}
	for _, t := range st.Trajectory {
		m := &chatMessage{Role: "assistant", Action: t.Action}
		calls, _ := sweTextCalls(m)
		for _, cl := range calls {
			s := b.m.step(cl)
			observe(&s, t.Observation)
			b.add(s)
		}
	}
	return b.finish(id)
}

// sweTextCalls turns a text action into a call: "submit" ends the run,
// SWE-agent's own commands do what they did (sweCommand), anything else
// is a line for SWE-agent's shell.
func sweTextCalls(m *chatMessage) ([]call, bool) {
	a := strings.TrimSpace(m.Action)
	if a == "" {
		return nil, false
	}
	if a == "submit" || strings.HasPrefix(a, "submit ") {
		return []call{{Name: "submit", Args: map[string]any{}}}, true
	}
	if c, ok := sweCommand(a); ok {
		return []call{c}, true
	}
	return []call{{Name: "bash", Args: map[string]any{"command": a}}}, true
}
