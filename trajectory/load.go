package trajectory

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rbx-sandbox/rbx/task/source"
)

// Load reads the trajectories of a .json file (one trajectory object) or a
// .jsonl file (one object per non-blank line) and validates them. Problems
// are *task.ParseError values naming the file, line and field, joined when
// there are several. For JSONL, Load also returns the lines that were
// valid alongside the error, so callers may choose to skip bad lines.
func Load(path string) ([]*Trajectory, error) {
	var jsonl bool
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
	case ".jsonl":
		jsonl = true
	default:
		return nil, &ParseError{File: path, Msg: "expected a trajectory file ending in .json or .jsonl"}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load trajectories: %w", err)
	}
	return Parse(path, data, jsonl)
}

// Parse decodes and validates trajectories from data; name is used in
// errors and stored as each trajectory's Path. With jsonl, data holds one
// trajectory per non-blank line and each gets its Line; an empty JSONL
// document holds no trajectories and is not an error.
func Parse(name string, data []byte, jsonl bool) ([]*Trajectory, error) {
	if !jsonl {
		t, err := parseOne(name, data, 0)
		if err != nil {
			return nil, err
		}
		return []*Trajectory{t}, nil
	}
	var (
		out  []*Trajectory
		errs []error
	)
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		t, err := parseOne(name, line, i+1)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, t)
	}
	return out, errors.Join(errs...)
}

func parseOne(name string, data []byte, line int) (*Trajectory, error) {
	var (
		root *source.Node
		err  error
	)
	if line > 0 {
		root, err = source.ParseJSONLine(name, data, line)
	} else {
		root, err = source.ParseJSON(name, data)
	}
	if err != nil {
		return nil, err
	}
	if root.Kind != source.Object {
		msg := fmt.Sprintf("expected a trajectory object, got %s", root.Kind)
		if root.Kind == source.Array && line == 0 {
			msg += "; for several trajectories use a .jsonl file with one object per line"
		}
		return nil, &ParseError{File: name, Line: root.Pos.Line, Column: root.Pos.Column, Msg: msg}
	}
	var t Trajectory
	if err := source.Decode(name, root, &t); err != nil {
		return nil, err
	}
	t.Path, t.Line = name, line
	r := source.NewReporter(name, root)
	t.validate(r, root)
	if err := r.Err(); err != nil {
		return nil, err
	}
	return &t, nil
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
