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

// commonFields are the step members every action kind accepts.
var commonFields = []string{"action", "observation", "volatile", "checkpoint", "compare", "tokens", "messages"}

// kindFields are the members each action kind accepts besides commonFields.
var kindFields = map[Kind][]string{
	KindShell:     {"command", "timeout", "cwd", "env"},
	KindWriteFile: {"path", "content", "content_b64", "mode"},
	KindReadFile:  {"path", "range"},
	KindEditFile:  {"path", "old", "new", "insert_line", "text"},
	KindHTTP:      {"method", "url", "headers", "body", "capture", "timeout"},
	KindNoop:      {"note"},
}

// Fields lists the step members action kind k accepts, common ones
// included, or nil for an unknown kind.
func (k Kind) Fields() []string {
	own, ok := kindFields[k]
	if !ok {
		return nil
	}
	return append(slices.Clone(commonFields), own...)
}

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool { return slices.Contains(Kinds, k) }

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
