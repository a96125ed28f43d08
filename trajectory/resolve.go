package trajectory

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rbx-sandbox/rbx/task/source"
)

// maxPeekSize bounds the candidate files ResolveTaskPath reads.
const maxPeekSize = 4 << 20

// ResolveTaskPath finds the task file of t. The task field is first taken
// as a path relative to the trajectory's file (or absolute); if no such
// file exists it is taken as a task id and looked up among the *.yaml,
// *.yml and *.json task files in the trajectory's directory. Errors wrap
// ErrTaskNotFound and say what was tried.
func (t *Trajectory) ResolveTaskPath() (string, error) {
	dir := filepath.Dir(t.Path)
	if t.Path == "" {
		dir = "."
	}
	if t.Task == "" {
		return "", fmt.Errorf("trajectory %q: %w: the task field is empty", t.ID, ErrTaskNotFound)
	}
	direct := t.Task
	if !filepath.IsAbs(direct) {
		direct = filepath.Join(dir, filepath.FromSlash(direct))
	}
	if info, err := os.Stat(direct); err == nil && info.Mode().IsRegular() {
		return direct, nil
	}
	var candidates []string
	for _, pat := range []string{"*.yaml", "*.yml", "*.json"} {
		m, _ := filepath.Glob(filepath.Join(dir, pat))
		candidates = append(candidates, m...)
	}
	slices.Sort(candidates)
	var found []string
	for _, c := range candidates {
		if c != t.Path && filepath.Clean(c) != filepath.Clean(t.Path) && peekTaskID(c) == t.Task {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", fmt.Errorf("trajectory %q: %w: no file %s, and none of the %d task files (*.yaml, *.yml, *.json) in %s has id %q",
			t.ID, ErrTaskNotFound, direct, len(candidates), dir, t.Task)
	}
	return "", fmt.Errorf("trajectory %q: task id %q is ambiguous: %s all have it; name the file instead",
		t.ID, t.Task, strings.Join(found, ", "))
}

// peekTaskID returns the id of the task document at path, or "" when it
// is not one (unreadable, too large, not a mapping, or a trajectory).
func peekTaskID(path string) string {
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() || info.Size() > maxPeekSize {
		return ""
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var root *source.Node
	if strings.EqualFold(filepath.Ext(path), ".json") {
		root, err = source.ParseJSON(path, data)
	} else {
		root, err = source.ParseYAML(path, data)
	}
	if err != nil || root.Kind != source.Object || root.Get("steps") != nil {
		return ""
	}
	if id := root.Get("id"); id != nil && id.Kind == source.String {
		return id.Str
	}
	return ""
}
