package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// ErrMalformed marks an action an agent asked for that cannot be carried
// out as asked: unknown tool, arguments that are not a JSON object, unknown
// or missing fields. It is fed back to the agent, not executed.
var ErrMalformed = errors.New("malformed action")

// agentFields are the fields an agent may set: the action's own, not the
// recording's (observation, checkpoint, capture...).
var agentFields = map[trajectory.Kind][]string{
	trajectory.KindShell:     {"command", "timeout", "cwd", "env"},
	trajectory.KindWriteFile: {"path", "content", "content_b64", "mode"},
	trajectory.KindReadFile:  {"path", "range"},
	trajectory.KindEditFile:  {"path", "old", "new", "insert_line", "text"},
	trajectory.KindHTTP:      {"method", "url", "headers", "body", "timeout"},
}

// ParseAction turns a tool call (name, JSON arguments) into an action.
func ParseAction(name string, args []byte) (trajectory.Step, error) {
	kind := trajectory.Kind(name)
	allowed, ok := agentFields[kind]
	if !ok {
		return trajectory.Step{}, fmt.Errorf("%w: unknown tool %q (tools: shell, write_file, read_file, edit_file, http, submit)", ErrMalformed, name)
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("{}")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(args, &fields); err != nil || fields == nil {
		return trajectory.Step{}, fmt.Errorf("%w: %s arguments: expected a JSON object: %s", ErrMalformed, name, truncate(string(args), 200))
	}
	for k := range fields {
		if !slices.Contains(allowed, k) {
			return trajectory.Step{}, fmt.Errorf("%w: %s: unknown argument %q (takes %s)", ErrMalformed, name, k, strings.Join(allowed, ", "))
		}
	}
	s := trajectory.Step{Action: kind}
	if err := json.Unmarshal(args, &s); err != nil {
		return trajectory.Step{}, fmt.Errorf("%w: %s arguments: %v", ErrMalformed, name, err)
	}
	s.Action = kind
	if err := required(s); err != nil {
		return trajectory.Step{}, fmt.Errorf("%w: %s: %v", ErrMalformed, name, err)
	}
	return s, nil
}

// required checks what the replayer cannot default.
func required(s trajectory.Step) error {
	switch s.Action {
	case trajectory.KindShell:
		if strings.TrimSpace(s.Command) == "" {
			return errors.New(`"command" is required`)
		}
	case trajectory.KindWriteFile:
		if s.Content == nil && s.ContentB64 == "" {
			return errors.New(`"content" or "content_b64" is required`)
		}
	case trajectory.KindEditFile:
		if (s.Old == nil || s.New == nil) && (s.InsertLine == nil || s.Text == nil) {
			return errors.New(`expected "old" and "new", or "insert_line" and "text"`)
		}
		if s.Old != nil && *s.Old == "" {
			return errors.New(`"old" must not be empty`)
		}
	case trajectory.KindHTTP:
		if s.Method == "" || s.URL == "" {
			return errors.New(`"method" and "url" are required`)
		}
	}
	if s.Action != trajectory.KindShell && s.Action != trajectory.KindHTTP && strings.TrimSpace(s.Path) == "" {
		return errors.New(`"path" is required`)
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
