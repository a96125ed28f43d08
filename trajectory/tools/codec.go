package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// ErrMalformed marks a tool call that cannot be carried out as asked:
// unknown tool, arguments that are not a JSON object, unknown, missing or
// invalid arguments. It is fed back to the agent, not executed.
var ErrMalformed = errors.New("malformed action")

type config struct {
	vars  map[string]string
	kinds []trajectory.Kind
}

// WithKinds accepts the actions kinds (see For) instead of Kinds.
func WithKinds(kinds []trajectory.Kind) Option {
	return func(c *config) error { c.kinds = kinds; return nil }
}

// Option configures Parse.
type Option func(*config) error

// WithVars checks {{vars.X}} references against vars, the variables bound
// so far. Default: references are checked only for their form, for a
// caller that does not know what the replay has bound.
func WithVars(vars map[string]string) Option {
	return func(c *config) error {
		c.vars = vars
		if c.vars == nil {
			c.vars = map[string]string{}
		}
		return nil
	}
}

// Parse turns a tool call into a step. args is a JSON object, or a JSON
// string holding one as OpenAI sends it; empty means {}. Every error wraps
// ErrMalformed and names the tool and the argument at fault.
func Parse(name string, args []byte, opts ...Option) (trajectory.Step, error) {
	cfg := config{kinds: Kinds}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return trajectory.Step{}, err
		}
	}
	bad := func(format string, a ...any) (trajectory.Step, error) {
		return trajectory.Step{}, fmt.Errorf("%w: %s: %s", ErrMalformed, name, fmt.Sprintf(format, a...))
	}
	kind := trajectory.Kind(name)
	if !slices.Contains(cfg.kinds, kind) {
		return trajectory.Step{}, fmt.Errorf("%w: unknown tool %q: expected one of %s", ErrMalformed, name, kindList(cfg.kinds))
	}
	raw := bytes.TrimSpace(args)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return bad("arguments: %v", err)
		}
		raw = bytes.TrimSpace([]byte(s))
	}
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return bad("arguments: expected a JSON object: %s", truncate(string(raw), 200))
	}
	allowed := kind.ArgNames()
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if !slices.Contains(allowed, k) {
			return bad("no argument %q (it takes %s)", k, strings.Join(allowed, ", "))
		}
	}
	var s trajectory.Step
	if err := json.Unmarshal(raw, &s); err != nil {
		return bad("arguments: %v", err)
	}
	s.Action = kind
	if err := trajectory.CheckAction(s, cfg.vars); err != nil {
		return bad("%v", err)
	}
	return s, nil
}

// Arguments returns the arguments of step s as a JSON object: its
// action's own members, named as in the trajectory format (the inverse of
// Parse).
func Arguments(s trajectory.Step) (json.RawMessage, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode step %s: %w", s.Action, err)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		return nil, fmt.Errorf("decode step %s: %w", s.Action, err)
	}
	args := map[string]json.RawMessage{}
	for _, name := range s.Action.ArgNames() {
		if v, ok := all[name]; ok {
			args[name] = v
		}
	}
	return json.Marshal(args)
}

func kindList(kinds []trajectory.Kind) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
