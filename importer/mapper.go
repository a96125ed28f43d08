package importer

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// call is one tool invocation as an agent made it.
type call struct {
	Name string
	Args map[string]any
	ID   string
}

// mapper turns calls into steps through a tool map, remembering the file
// the agent opened last and reporting what it could not map.
type mapper struct {
	tools    ToolMap
	openFile string
	rep      *Report
}

// step maps c to a native step. A call it cannot map becomes a noop whose
// note names the tool and why, and is counted in the report: nothing is
// silently dropped.
func (m *mapper) step(c call) trajectory.Step {
	rule, ok := m.tools[c.Name]
	if !ok {
		// Agents spell the same tools in other cases (Claude Code's
		// "Bash", "Read", "Write"); an exact entry wins (its "Edit" is
		// not SWE-agent's windowed "edit").
		rule, ok = m.tools[strings.ToLower(c.Name)]
	}
	if !ok {
		m.rep.unknown(c.Name)
		return noop(fmt.Sprintf("unknown tool %q%s", c.Name, argsSuffix(c.Args)))
	}
	if rule.Action == trajectory.KindKeys && c.Args["keystrokes"] == nil && c.Args["keys"] == nil && c.Args["command"] != nil {
		// The same name for a shell command (Harbor's older converters
		// wrote bash_command {command}).
		rule = foreignShell
	}
	if rule.Action == trajectory.KindShell {
		// Keys sent to a running command (OpenHands' is_input), or an
		// empty command that waits for it: resolveRunning's.
		cmd, isStr := c.Args["command"].(string)
		if truthy(c.Args["is_input"]) || isStr && strings.TrimSpace(cmd) == "" {
			return trajectory.Step{Action: kindInput, Command: strings.TrimSpace(cmd)}
		}
	}
	var s trajectory.Step
	var err error
	switch rule.Action {
	case kindNotebook:
		s, err = notebookStep(c.Args)
	case kindPatch:
		s, err = patchStep(c.Args)
	default:
		s, err = m.apply(rule, c)
	}
	if err != nil {
		m.rep.warn(fmt.Sprintf("tool %q: %v; kept as a noop", c.Name, err))
		return noop(fmt.Sprintf("tool %q not mapped: %v%s", c.Name, err, argsSuffix(c.Args)))
	}
	if p, dir, ok := patchOf(s.Command); ok && s.Action == trajectory.KindShell {
		// apply_patch run through the shell tool, from its directory.
		s = trajectory.Step{Action: kindPatch, Command: p, Cwd: under(s.Cwd, dir)}
	}
	if s.Action == trajectory.KindShell && truthy(c.Args["run_in_background"]) {
		s.Action = kindBgStart // Claude Code's Bash: resolved by resolveBackground
	}
	if (s.Action == trajectory.KindReadFile || s.Action == trajectory.KindWriteFile) && s.Path != "" {
		m.openFile = s.Path
	}
	if s.Action == trajectory.KindNoop && s.Note == "" {
		s.Note = c.Name + argsSuffix(c.Args)
	}
	return s
}

func (m *mapper) apply(r Rule, c call) (trajectory.Step, error) {
	if r.By != "" {
		v, _ := c.Args[r.By].(string)
		sub, ok := r.Cases[v]
		if !ok {
			return trajectory.Step{}, fmt.Errorf("%s %q has no rule", r.By, v)
		}
		return m.apply(sub, c)
	}
	if r.Native {
		s, err := nativeStep(r.Action, c.Args)
		if err != nil && r.Action == trajectory.KindShell {
			// Not rbx's own fields: another agent's tool named "shell"
			// (Codex's argv command, workdir, timeout_ms; a "cmd").
			return m.apply(foreignShell, c)
		}
		return s, err
	}
	s := trajectory.Step{Action: r.Action}
	for field, src := range r.Args {
		v, ok := m.lookup(src, c.Args)
		if !ok {
			continue
		}
		if err := setField(&s, field, v); err != nil {
			return s, err
		}
	}
	return s, complete(&s)
}

// lookup finds the value named by src ("a|b", or OpenFile).
func (m *mapper) lookup(src string, args map[string]any) (any, bool) {
	for _, name := range strings.Split(src, "|") {
		if name == OpenFile {
			if m.openFile == "" {
				return nil, false
			}
			return m.openFile, true
		}
		if v, ok := args[name]; ok && v != nil {
			if ms, isNum := v.(float64); isNum && strings.HasSuffix(name, "_ms") {
				return ms / 1000, true // milliseconds (Codex's timeout_ms): rbx reads seconds
			}
			return v, true
		}
	}
	return nil, false
}

// nativeStep decodes arguments that are native step fields.
func nativeStep(kind trajectory.Kind, args map[string]any) (trajectory.Step, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return trajectory.Step{}, err
	}
	allowed := kind.ArgNames()
	for _, k := range slices.Sorted(maps.Keys(args)) {
		if !slices.Contains(allowed, k) {
			return trajectory.Step{}, fmt.Errorf("arguments: %s takes no %q (it takes %s)", kind, k, strings.Join(allowed, ", "))
		}
	}
	var s trajectory.Step
	if err := json.Unmarshal(raw, &s); err != nil {
		return s, fmt.Errorf("arguments: %w", err)
	}
	s.Action = kind
	return s, complete(&s)
}

// complete fills defaults and checks required fields.
func complete(s *trajectory.Step) error {
	switch s.Action {
	case trajectory.KindShell:
		if strings.TrimSpace(s.Command) == "" {
			return fmt.Errorf("missing command")
		}
	case trajectory.KindWriteFile:
		if s.Content == nil && s.ContentB64 == "" {
			s.Content = new(string)
		}
		fallthrough
	case trajectory.KindReadFile:
		if s.Path == "" {
			return fmt.Errorf("missing path")
		}
	case trajectory.KindEditFile:
		if s.Path == "" {
			return fmt.Errorf("missing path")
		}
		if s.InsertLine != nil && s.Text == nil {
			s.Text = new(string)
		}
		if s.Old != nil && s.New == nil {
			s.New = new(string)
		}
		if s.Range != nil && s.Text == nil {
			s.Text = new(string)
		}
		if (s.Old == nil || *s.Old == "") && s.InsertLine == nil && s.Range == nil {
			return fmt.Errorf("missing the text to replace")
		}
	case kindUndo:
		if s.Path == "" {
			return fmt.Errorf("missing path")
		}
	case kindBgOutput, kindBgKill:
		if s.Note == "" {
			return fmt.Errorf("missing the shell's id")
		}
	case trajectory.KindHTTP:
		if s.Method == "" || s.URL == "" {
			return fmt.Errorf("missing method or url")
		}
	}
	return nil
}

// setField sets argument field of s from a foreign value, coerced to the
// argument's type in trajectory's field table (numbers and booleans become
// strings, "30" or 30 seconds a duration, [start, end] a range, "true" a
// boolean).
func setField(s *trajectory.Step, field string, v any) error {
	arg, ok := mappable()[field]
	if !ok {
		return fmt.Errorf("argument %s: not a mappable step field", field)
	}
	var val any
	var err error
	switch arg.Type {
	case trajectory.ArgRange:
		val, err = toRange(v)
	case trajectory.ArgInt:
		val, err = toInt(v)
	case trajectory.ArgBool:
		val, err = toBool(v)
	case trajectory.ArgDuration:
		var d time.Duration
		d, err = toDuration(v)
		val = task.Duration(d)
	default:
		switch x := v.(type) {
		case string:
			val = x
		case float64, bool, json.Number:
			val = fmt.Sprint(x)
		case []any:
			if field != "command" {
				return fmt.Errorf("argument for %s: expected a string, got a list", field)
			}
			if val, err = argvCommand(x); err != nil {
				return err
			}
		default:
			return fmt.Errorf("argument for %s: expected a string, got %T", field, v)
		}
		if field == "method" {
			val = strings.ToUpper(val.(string))
		}
	}
	if err != nil {
		return err
	}
	raw, err := json.Marshal(map[string]any{field: val})
	if err != nil {
		return fmt.Errorf("argument %s: %w", field, err)
	}
	return json.Unmarshal(raw, s)
}

func toInt(v any) (int, error) {
	switch x := v.(type) {
	case float64:
		return int(x), nil
	case string:
		return strconv.Atoi(strings.TrimSpace(x))
	}
	return 0, fmt.Errorf("expected an integer, got %T", v)
}

func toBool(v any) (bool, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		return strconv.ParseBool(strings.TrimSpace(x))
	}
	return false, fmt.Errorf("expected a boolean, got %T", v)
}

func toDuration(v any) (time.Duration, error) {
	switch x := v.(type) {
	case float64:
		return time.Duration(x * float64(time.Second)), nil
	case string:
		if n, err := strconv.ParseFloat(x, 64); err == nil {
			return time.Duration(n * float64(time.Second)), nil
		}
		return time.ParseDuration(x)
	}
	return 0, fmt.Errorf("expected a duration, got %T", v)
}

// toRange reads [start, end] (end -1 means to the end) or {start, end}.
func toRange(v any) (*trajectory.Range, error) {
	var a, b any
	switch x := v.(type) {
	case []any:
		if len(x) != 2 {
			return nil, fmt.Errorf("range: expected [start, end]")
		}
		a, b = x[0], x[1]
	case map[string]any:
		a, b = x["start"], x["end"]
	default:
		return nil, fmt.Errorf("range: expected [start, end], got %T", v)
	}
	start, err := toInt(a)
	if err != nil {
		return nil, fmt.Errorf("range start: %w", err)
	}
	end := 0
	if b != nil {
		if end, err = toInt(b); err != nil {
			return nil, fmt.Errorf("range end: %w", err)
		}
	}
	if end < 0 {
		end = 0
	}
	if start < 1 {
		start = 1
	}
	return &trajectory.Range{Start: start, End: end}, nil
}

// truthy reports whether an argument is true (a boolean, or its string).
func truthy(v any) bool {
	b, err := toBool(v)
	return v != nil && err == nil && b
}

func noop(note string) trajectory.Step {
	return trajectory.Step{Action: trajectory.KindNoop, Note: note}
}

// argsSuffix renders arguments compactly for notes, bounded.
func argsSuffix(args map[string]any) string {
	if len(args) == 0 {
		return ""
	}
	b, err := json.Marshal(args)
	if err != nil {
		return ""
	}
	const maxNote = 400
	if len(b) > maxNote {
		return " " + string(b[:maxNote]) + "…"
	}
	return " " + string(b)
}
