package prefilter

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rbx-sandbox/rbx/corpus"
	"github.com/rbx-sandbox/rbx/importer"
	"github.com/rbx-sandbox/rbx/task"
)

// Discover finds the native trajectories under paths; see Find, which also
// reports what else it found and takes trajectories in other formats.
func Discover(paths ...string) ([]*Item, error) {
	f, err := Find(paths)
	if err != nil {
		return nil, err
	}
	return f.Items, nil
}

// Find finds the trajectories under paths: a directory is walked
// recursively for task files (*.yaml, *.yml, and *.json objects without
// "steps"), native trajectory files (*.json with "steps", *.jsonl) and
// trajectories in the formats the importer knows (*.json, *.traj: OpenAI
// messages, ATIF, SWE-agent, mini-swe-agent, OpenHands); a file is read as
// a trajectory file. A foreign trajectory becomes an item when its task is
// known (WithTask, WithTasksDir, or a task file beside it), else it is
// listed in Found.Foreign with what it holds. Hidden entries and the files
// tasks copy into their sandboxes are skipped. Documents that fail to load
// are returned as items with Err set (one per bad JSONL line, the good
// lines still judged); Find itself fails only when a path cannot be read or
// an option is wrong.
func Find(paths []string, opts ...FindOption) (*Found, error) {
	cfg, err := newFindConfig(opts)
	if err != nil {
		return nil, err
	}
	var w walked
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("discover: %w", err)
		}
		if !info.IsDir() {
			w.file(filepath.Clean(p), true)
			continue
		}
		if err := w.walk(p); err != nil {
			return nil, err
		}
	}
	l := newLoader()
	inputs := taskInputs(w.tasks, l.tasks)
	w.trajs = slices.DeleteFunc(w.trajs, inputs.holds)
	w.foreign = slices.DeleteFunc(w.foreign, inputs.holds)
	slices.Sort(w.trajs)
	w.trajs = slices.Compact(w.trajs)
	found := &Found{Tasks: w.tasks, Other: w.other}
	for _, f := range w.trajs {
		found.Items = append(found.Items, l.file(f)...)
	}
	items, foreign := cfg.foreign(l, w.foreign)
	found.Items, found.Foreign = append(found.Items, items...), foreign
	// A malformed task file that a trajectory names is reported through
	// that trajectory, not a second time as a document of its own.
	found.Items = slices.DeleteFunc(found.Items, func(it *Item) bool {
		return it.Err != nil && it.Traj == nil && l.taskPaths[filepath.Clean(it.Key.File)]
	})
	return found, nil
}

// walked sorts the files found into kinds.
type walked struct {
	trajs, tasks, foreign, other []string
}

// walk sorts the files under dir.
func (w *walked) walk(dir string) error {
	err := WalkFiles(dir, func(p string, _ fs.FileInfo) error {
		w.file(p, false)
		return nil
	})
	if err != nil {
		return fmt.Errorf("discover %s: %w", dir, err)
	}
	return nil
}

// WalkFiles calls fn, in lexical order, with every file Find reads under
// dir: regular files, and symlinks to regular files (a mounted ConfigMap's
// files are links into a hidden directory it swaps on each update), with
// the file's own info; hidden entries ("." first) are skipped, directories
// not followed through links.
func WalkFiles(dir string, fn func(p string, info fs.FileInfo) error) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		info, err := os.Stat(p) // through a link
		if err != nil || !info.Mode().IsRegular() {
			return nil // a dangling link, or a link to a directory: no task file
		}
		return fn(p, info)
	})
}

// file sorts one file; named is set for a file given on the command line,
// which is a trajectory unless it is in a foreign format.
func (w *walked) file(p string, named bool) {
	ext := strings.ToLower(filepath.Ext(p))
	switch {
	case ext == ".jsonl":
		w.trajs = append(w.trajs, p)
	case ext == ".json" || ext == ".traj":
		switch kindOfJSON(p) {
		case jsonNative:
			w.trajs = append(w.trajs, p)
		case jsonForeign:
			w.foreign = append(w.foreign, p)
		case jsonOther:
			if named {
				w.trajs = append(w.trajs, p)
			} else if ext == ".json" {
				w.tasks = append(w.tasks, p)
			} else {
				w.other = append(w.other, p)
			}
		}
	case named:
		w.trajs = append(w.trajs, p)
	case ext == ".yaml" || ext == ".yml":
		w.tasks = append(w.tasks, p)
	default:
		w.other = append(w.other, p)
	}
}

type jsonKind int

const (
	jsonOther   jsonKind = iota // a task, or a JSON file of the workspace
	jsonNative                  // a native trajectory (or not JSON at all: reported, not skipped)
	jsonForeign                 // a trajectory in a format the importer knows
)

// kindOfJSON tells a native trajectory (an object with "steps") from a
// foreign one (importer.Detect) and from a task or another JSON file. A
// file that is not valid JSON counts as native, so that it is reported
// rather than silently skipped.
func kindOfJSON(path string) jsonKind {
	data, err := os.ReadFile(path)
	if err != nil {
		return jsonNative
	}
	if !json.Valid(data) {
		return jsonNative
	}
	if f, err := importer.Detect(data); err == nil && f != importer.FormatNative {
		return jsonForeign // ATIF has "steps" too
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) == nil {
		if _, ok := obj["steps"]; ok {
			return jsonNative
		}
	}
	return jsonOther
}

// inputRoots are the files and directories tasks copy into their
// sandboxes (files and verify.files sources): a workspace may hold JSON of
// its own, which is not a trajectory to serve.
type inputRoots map[string]bool

// taskInputs loads every task file (through tasks, which keeps them for
// the loader) and collects its input roots.
func taskInputs(taskFiles []string, tasks *corpus.Tasks) inputRoots {
	roots := inputRoots{}
	tasks.Preload(taskFiles)
	for _, tf := range taskFiles {
		tk, _, err := tasks.Load(tf)
		if err != nil {
			continue
		}
		for _, m := range []map[string]string{tk.Files, tk.Verify.Files} {
			for src := range m {
				roots[filepath.Join(filepath.Dir(tf), filepath.FromSlash(src))] = true
			}
		}
	}
	return roots
}

// holds tells whether f is a root or under one: a walk up f's parents, so
// the cost does not grow with the number of tasks.
func (r inputRoots) holds(f string) bool {
	if len(r) == 0 {
		return false
	}
	for p := filepath.Clean(f); ; {
		if r[p] {
			return true
		}
		parent := filepath.Dir(p)
		if parent == p {
			return false
		}
		p = parent
	}
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
