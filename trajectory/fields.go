package trajectory

import (
	"fmt"
	"io/fs"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/rbx-sandbox/rbx/task/source"
)

// ArgType is the JSON shape of an action argument.
type ArgType int

// Argument shapes.
const (
	ArgString    ArgType = iota // a JSON string
	ArgInt                      // a JSON integer
	ArgDuration                 // a duration string such as "30s"
	ArgStringMap                // an object of strings
	ArgRange                    // {"start", "end"} line numbers
	ArgBool                     // a JSON boolean
)

// Arg is one argument of an action kind: a step member the action itself
// takes, as opposed to what a recording adds (observation, checkpoint...).
type Arg struct {
	Name     string
	Type     ArgType
	Required bool   // always required (alternatives such as content / content_b64 are checked by Validate)
	Doc      string // one line for tool schemas
}

// recordFields are the step members every action kind accepts that are not
// arguments: what a recording adds to the action.
var recordFields = []string{"action", "observation", "volatile", "checkpoint", "compare", "tokens", "intervened", "messages"}

// kindArgs is the one table of the arguments each action kind accepts.
// Validation, the tool schemas and the tool-call codec (trajectory/tools)
// are all derived from it.
var kindArgs = map[Kind][]Arg{
	KindShell: {
		{"command", ArgString, true, "shell source"},
		{"timeout", ArgDuration, false, "duration, e.g. 30s"},
		{"cwd", ArgString, false, "directory for this command"},
		{"env", ArgStringMap, false, "environment variables for this command"},
	},
	KindWriteFile: {
		{"path", ArgString, true, "file path"},
		{"content", ArgString, false, "text content"},
		{"content_b64", ArgString, false, "binary content, base64"},
		{"mode", ArgString, false, "octal mode, e.g. 0755"},
	},
	KindReadFile: {
		{"path", ArgString, true, "file path"},
		{"range", ArgRange, false, "lines to read, 1-based and inclusive (end 0: to the end)"},
	},
	KindEditFile: {
		{"path", ArgString, true, "file path"},
		{"old", ArgString, false, "text to replace"},
		{"new", ArgString, false, "replacement"},
		{"insert_line", ArgInt, false, "line after which to insert (0: at the top)"},
		{"text", ArgString, false, "text to insert"},
		{"all", ArgBool, false, "replace every occurrence of old (at least one), not exactly one"},
		{"range", ArgRange, false, "lines to replace with text, 1-based and inclusive"},
	},
	KindHTTP: {
		{"method", ArgString, true, "GET, POST, PUT, PATCH, DELETE or HEAD"},
		{"url", ArgString, true, "URL under a declared service"},
		{"headers", ArgStringMap, false, "request headers"},
		{"body", ArgString, false, "request body"},
		{"capture", ArgStringMap, false, "variable → dotted path into the JSON response, e.g. data.code"},
		{"timeout", ArgDuration, false, "duration, e.g. 30s"},
		{"retry", ArgBool, false, "send again after a connection error or a 5xx/429 answer (default: only for GET, HEAD, PUT, DELETE)"},
	},
	KindNoop: {
		{"note", ArgString, false, "what the agent thought"},
	},
	KindKeys: {
		{"keys", ArgString, false, "keystrokes: text (\\n is Enter), or one tmux key name such as C-c, C-d, Escape, Up; empty waits"},
		{"duration", ArgDuration, false, "how long to wait for the terminal's output, e.g. 5s"},
	},
}

// Args lists the arguments action kind k takes, or nil for an unknown kind.
func (k Kind) Args() []Arg { return slices.Clone(kindArgs[k]) }

// ArgNames lists the names of k's arguments.
func (k Kind) ArgNames() []string {
	var names []string
	for _, a := range kindArgs[k] {
		names = append(names, a.Name)
	}
	return names
}

// Fields lists the step members action kind k accepts, recording ones
// included, or nil for an unknown kind.
func (k Kind) Fields() []string {
	if _, ok := kindArgs[k]; !ok {
		return nil
	}
	return append(slices.Clone(recordFields), k.ArgNames()...)
}

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool { return slices.Contains(Kinds, k) }

// File reports whether k reads or writes a file (write_file, read_file,
// edit_file): the actions the sandbox runs as file actions, whose
// refusals are outcomes.
func (k Kind) File() bool { return k == KindWriteFile || k == KindReadFile || k == KindEditFile }

// setFields returns the json names of the step's non-zero fields: what a
// step built in code "has", mirroring the keys present in a document.
func setFields(s *Step) map[string]bool {
	set := map[string]bool{}
	v := reflect.ValueOf(s).Elem()
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" && !v.Field(i).IsZero() {
			set[name] = true
		}
	}
	return set
}

// DefaultFileMode is the mode of a write_file step without "mode".
const DefaultFileMode fs.FileMode = 0o644

// FileMode returns the step's mode parsed from its octal string, or
// DefaultFileMode when it has none.
func (s Step) FileMode() (fs.FileMode, error) {
	if s.Mode == "" {
		return DefaultFileMode, nil
	}
	if len(s.Mode) < 3 || len(s.Mode) > 4 {
		return 0, fmt.Errorf("mode %q: expected 3 or 4 octal digits such as \"0755\"", s.Mode)
	}
	m, err := strconv.ParseUint(s.Mode, 8, 32)
	if err != nil {
		return 0, fmt.Errorf("mode %q: expected 3 or 4 octal digits such as \"0755\"", s.Mode)
	}
	perm := fs.FileMode(m & 0o777)
	if m&0o4000 != 0 {
		perm |= fs.ModeSetuid
	}
	if m&0o2000 != 0 {
		perm |= fs.ModeSetgid
	}
	if m&0o1000 != 0 {
		perm |= fs.ModeSticky
	}
	return perm, nil
}

// templated calls fn on every string field of s that may hold references,
// with its path relative to the step, and stores what fn returns. Maps are
// copied before being written, so s may be a shallow copy of another step.
func (s *Step) templated(fn func(field, v string) (string, error)) error {
	for _, f := range []struct {
		name string
		p    *string
	}{
		{"command", &s.Command}, {"cwd", &s.Cwd}, {"path", &s.Path}, {"content", s.Content},
		{"old", s.Old}, {"new", s.New}, {"text", s.Text}, {"url", &s.URL}, {"body", s.Body},
	} {
		if f.p == nil {
			continue
		}
		out, err := fn(f.name, *f.p)
		if err != nil {
			return err
		}
		*f.p = out
	}
	for _, m := range []struct {
		name string
		m    *map[string]string
	}{{"env", &s.Env}, {"headers", &s.Headers}} {
		if *m.m == nil {
			continue
		}
		*m.m = maps.Clone(*m.m)
		for _, k := range slices.Sorted(maps.Keys(*m.m)) {
			out, err := fn(source.Key(m.name, k), (*m.m)[k])
			if err != nil {
				return err
			}
			(*m.m)[k] = out
		}
	}
	return nil
}

// Expand returns a copy of s with every reference in its templated fields
// (command, cwd, env values, path, content, old, new, text, url, header
// values, body) replaced, as Expand does for one string. Errors name the
// field.
func (s Step) Expand(vars, services map[string]string) (Step, error) {
	for _, p := range []**string{&s.Content, &s.Old, &s.New, &s.Text, &s.Body} {
		if *p != nil {
			v := **p
			*p = &v
		}
	}
	err := s.templated(func(field, v string) (string, error) {
		out, err := Expand(v, vars, services)
		if err != nil {
			return "", fmt.Errorf("%s: %w", field, err)
		}
		return out, nil
	})
	return s, err
}
