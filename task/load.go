package task

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rbx-sandbox/rbx/task/source"
)

// ParseError is one located problem in a task or trajectory document; its
// Error() reads "task.yaml:12:5: limits.memory: expected ...". Loading
// functions return a *ParseError, or several joined with errors.Join (the
// first in document order first); use errors.As to get at the fields.
type ParseError = source.ParseError

// Load reads a task from a .yaml, .yml or .json file, validates it, and
// checks that the files it names exist inside its directory. Dir is set to
// the file's absolute directory and Path to path.
func Load(path string) (*Task, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml", ".json":
	default:
		return nil, &ParseError{File: path, Msg: "expected a task file ending in .yaml, .yml or .json"}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load task: %w", err)
	}
	t, root, err := parse(path, data)
	if err != nil {
		return nil, err
	}
	if abs, err := filepath.Abs(t.Dir); err == nil {
		t.Dir = abs
	}
	r := source.NewReporter(path, root)
	t.checkFiles(r)
	if err := r.Err(); err != nil {
		return nil, err
	}
	return t, nil
}

// Parse decodes and validates a task document without touching the disk.
// name is used in errors and to choose the syntax: JSON for names ending in
// .json, YAML for .yaml and .yml, otherwise JSON when the document starts
// with '{'. Dir is set to name's directory and Path to name.
func Parse(name string, data []byte) (*Task, error) {
	t, _, err := parse(name, data)
	return t, err
}

func parse(name string, data []byte) (*Task, *source.Node, error) {
	root, err := parseTree(name, data)
	if err != nil {
		return nil, nil, err
	}
	if root.Kind != source.Object {
		return nil, nil, &ParseError{File: name, Line: root.Pos.Line, Column: root.Pos.Column,
			Msg: fmt.Sprintf("expected a task object, got %s", root.Kind)}
	}
	var t Task
	if err := source.Decode(name, root, &t); err != nil {
		return nil, nil, err
	}
	t.Path, t.Dir = name, filepath.Dir(name)
	r := source.NewReporter(name, root)
	t.validate(r)
	if err := r.Err(); err != nil {
		return nil, nil, err
	}
	return &t, root, nil
}

func parseTree(name string, data []byte) (*source.Node, error) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return source.ParseJSON(name, data)
	case ".yaml", ".yml":
		return source.ParseYAML(name, data)
	}
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		return source.ParseJSON(name, data)
	}
	return source.ParseYAML(name, data)
}

// Reporter re-reads t's file and returns a reporter that locates fields in
// it, for checks made after loading (an operator's admission policy, see
// package admission); a task whose file cannot be read again reports
// without positions.
func (t *Task) Reporter() *source.Reporter {
	if data, err := os.ReadFile(t.Path); err == nil {
		if root, err := parseTree(t.Path, data); err == nil {
			return source.NewReporter(t.Path, root)
		}
	}
	return source.NewReporter(t.Path, &source.Node{})
}
