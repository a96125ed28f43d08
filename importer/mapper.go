package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
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
		m.rep.unknown(c.Name)
		return noop(fmt.Sprintf("unknown tool %q%s", c.Name, argsSuffix(c.Args)))
	}
	s, err := m.apply(rule, c)
	if err != nil {
		m.rep.warn(fmt.Sprintf("tool %q: %v; kept as a noop", c.Name, err))
		return noop(fmt.Sprintf("tool %q not mapped: %v%s", c.Name, err, argsSuffix(c.Args)))
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
		return nativeStep(r.Action, c.Args)
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
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var s trajectory.Step
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("arguments: %w", err)
	}
	if s.Observation != nil || s.Messages != nil || s.Tokens != 0 || s.Checkpoint != nil || s.Volatile || s.Compare != "" {
		return s, fmt.Errorf("arguments hold step metadata, not action fields")
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
		if (s.Old == nil || *s.Old == "") && s.InsertLine == nil {
			return fmt.Errorf("missing the text to replace")
		}
	case trajectory.KindHTTP:
		if s.Method == "" || s.URL == "" {
			return fmt.Errorf("missing method or url")
		}
	}
	return nil
}

func setField(s *trajectory.Step, field string, v any) error {
	str := func() (string, error) {
		switch x := v.(type) {
		case string:
			return x, nil
		case float64, bool, json.Number:
			return fmt.Sprint(x), nil
		}
		return "", fmt.Errorf("argument for %s: expected a string, got %T", field, v)
	}
	switch field {
	case "range":
		r, err := toRange(v)
		s.Range = r
		return err
	case "insert_line":
		n, err := toInt(v)
		s.InsertLine = &n
		return err
	case "timeout":
		d, err := toDuration(v)
		s.Timeout = task.Duration(d)
		return err
	}
	x, err := str()
	if err != nil {
		return err
	}
	switch field {
	case "command":
		s.Command = x
	case "cwd":
		s.Cwd = x
	case "path":
		s.Path = x
	case "content":
		s.Content = &x
	case "mode":
		s.Mode = x
	case "old":
		s.Old = &x
	case "new":
		s.New = &x
	case "text":
		s.Text = &x
	case "note":
		s.Note = x
	case "method":
		s.Method = strings.ToUpper(x)
	case "url":
		s.URL = x
	case "body":
		s.Body = &x
	}
	return nil
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
