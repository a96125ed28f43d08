package importer

import (
	"fmt"
	"strings"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// isMultiEdit reports whether name is Claude Code's MultiEdit: several
// str_replace edits of one file, applied together or not at all.
func isMultiEdit(name string) bool { return strings.EqualFold(name, "MultiEdit") }

// multiEditSteps maps a MultiEdit call to one edit_file per edit, in
// order (each on the file as the ones before left it, as the tool
// applies them). A call whose result was an error changed nothing (the
// tool applies all or none): one noop saying so.
func (m *mapper) multiEditSteps(args map[string]any, failed bool) ([]trajectory.Step, error) {
	path, _ := args["file_path"].(string)
	if path == "" {
		return nil, fmt.Errorf("missing file_path")
	}
	edits, ok := args["edits"].([]any)
	if !ok || len(edits) == 0 {
		return nil, fmt.Errorf("edits: expected a non-empty list of {old_string, new_string, replace_all?}")
	}
	if failed {
		return []trajectory.Step{noop(fmt.Sprintf("MultiEdit of %s not applied (the tool reported an error: it applies all edits or none)", path))}, nil
	}
	steps := make([]trajectory.Step, 0, len(edits))
	for k, e := range edits {
		em, ok := e.(map[string]any)
		old, ok1 := em["old_string"].(string)
		repl, ok2 := em["new_string"].(string)
		if !ok || !ok1 || !ok2 || old == "" {
			return nil, fmt.Errorf("edits[%d]: expected old_string (non-empty) and new_string", k)
		}
		all, _ := em["replace_all"].(bool)
		steps = append(steps, trajectory.Step{Action: trajectory.KindEditFile, Path: path, Old: &old, New: &repl, All: all})
	}
	m.openFile = path
	return steps, nil
}
