package prefilter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rbx-sandbox/rbx/task"
)

// Discover finds the trajectories under paths: a directory is walked
// recursively for task files (*.yaml, *.yml, and *.json objects without
// "steps") and trajectory files (*.json with "steps", *.jsonl); a file is
// read as a trajectory file. Hidden entries and the files tasks copy into
// their sandboxes are skipped. Documents that fail to load are returned as
// items with Err set (one per bad JSONL line, the good lines still judged);
// Discover itself fails only when a path cannot be read.
func Discover(paths ...string) ([]*Item, error) {
	var trajFiles, taskFiles []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("discover: %w", err)
		}
		if !info.IsDir() {
			trajFiles = append(trajFiles, filepath.Clean(p))
			continue
		}
		tr, tk, err := walk(p)
		if err != nil {
			return nil, err
		}
		trajFiles, taskFiles = append(trajFiles, tr...), append(taskFiles, tk...)
	}
	trajFiles = skipTaskInputs(trajFiles, taskFiles)
	slices.Sort(trajFiles)
	trajFiles = slices.Compact(trajFiles)
	l := newLoader()
	var items []*Item
	for _, f := range trajFiles {
		items = append(items, l.file(f)...)
	}
	// A malformed task file that a trajectory names is reported through
	// that trajectory, not a second time as a document of its own.
	items = slices.DeleteFunc(items, func(it *Item) bool {
		return it.Err != nil && it.Traj == nil && l.taskPaths[filepath.Clean(it.Key.File)]
	})
	return items, nil
}

// walk lists the candidate trajectory files and the task files under dir.
func walk(dir string) (trajs, tasks []string, err error) {
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".yaml", ".yml":
			tasks = append(tasks, p)
		case ".jsonl":
			trajs = append(trajs, p)
		case ".json":
			if isTrajectoryJSON(p) {
				trajs = append(trajs, p)
			} else {
				tasks = append(tasks, p)
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("discover %s: %w", dir, err)
	}
	return trajs, tasks, nil
}

// isTrajectoryJSON tells a trajectory (an object with "steps") from a task
// or another JSON file. A file that is not valid JSON counts as a
// trajectory, so that it is reported rather than silently skipped.
func isTrajectoryJSON(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return true
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return !bytes.HasPrefix(bytes.TrimSpace(data), []byte("[")) || !json.Valid(data)
	}
	_, ok := obj["steps"]
	return ok
}

// skipTaskInputs drops files that a task copies into its sandbox (its
// files and verify.files sources): a workspace may hold JSON of its own.
func skipTaskInputs(files, taskFiles []string) []string {
	var roots []string
	for _, tf := range taskFiles {
		tk, err := task.Load(tf)
		if err != nil {
			continue
		}
		for _, m := range []map[string]string{tk.Files, tk.Verify.Files} {
			for src := range m {
				roots = append(roots, filepath.Join(filepath.Dir(tf), filepath.FromSlash(src)))
			}
		}
	}
	return slices.DeleteFunc(files, func(f string) bool {
		for _, r := range roots {
			if f == r || strings.HasPrefix(f, r+string(filepath.Separator)) {
				return true
			}
		}
		return false
	})
}

// errFlatten lists the leaves of a tree of joined errors.
func errFlatten(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, errFlatten(e)...)
		}
		return out
	}
	if err == nil {
		return nil
	}
	return []error{err}
}

// lineOf is the JSONL line a parse error points at (0 when unknown).
func lineOf(err error) int {
	var pe *task.ParseError
	if errors.As(err, &pe) {
		return pe.Line
	}
	return 0
}
