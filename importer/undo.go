package importer

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// kindUndo is the importer's own action for str_replace_editor's
// undo_edit (SWE-agent, OpenHands): the editor writes back the file as it
// was before its last edit of that path. It has no native action: the
// builder resolves it (resolveUndos) once the edits before it, and
// whether they were applied, are known.
const kindUndo trajectory.Kind = "undo_edit"

// undoWorked starts the editor's result of an undo that worked.
var undoWorked = regexp.MustCompile(`^Last edit to .* undone successfully`)

// undoDone starts the editor's result of an undo that worked; the file
// as restored follows, numbered as by `cat -n`.
var undoDone = regexp.MustCompile(`^Last edit to (\S.*?) undone successfully\. Here's the result of running ` + "`cat -n`" + ` on [^\n]*:\n`)

// numbered is one line of `cat -n` output as the editors print it: the
// number right-aligned in 6 columns, a tab, the line.
var numbered = regexp.MustCompile(`^ *(\d+)(?:\t(.*))?$`)

// resolveUndos turns each undo step into what the editor did: the file
// written back as the undo's result shows it (whole: nothing clipped),
// else the reverse of the path's last edit still undoable (a
// str_replace's new text back to its old, an insertion's lines deleted; a
// create's undo rewrites what it created: nothing). An undo the recording
// says failed ("No edit history found") did nothing. An undo it can
// neither read nor reverse is an error naming the step: rbx will not
// guess a file's content.
func resolveUndos(steps []trajectory.Step) error {
	history := map[string][]int{} // path → indexes of its undoable edits, oldest first
	for i := range steps {
		s := &steps[i]
		switch {
		case s.Action == kindUndo:
			h := history[s.Path]
			var last *trajectory.Step
			if len(h) > 0 {
				last, history[s.Path] = &steps[h[len(h)-1]], h[:len(h)-1]
			}
			if err := resolveUndo(s, last); err != nil {
				return fmt.Errorf("step %d (undo_edit %s): %w", i, s.Path, err)
			}
		case undoable(*s):
			history[s.Path] = append(history[s.Path], i)
		}
	}
	return nil
}

// undoable reports whether s is an editor's applied edit that an
// undo_edit reverts: an edit_file or a create (write_file) that did not
// fail when recorded.
func undoable(s trajectory.Step) bool {
	if s.Action != trajectory.KindEditFile && s.Action != trajectory.KindWriteFile {
		return false
	}
	return !failedWhenRecorded(s)
}

// resolveUndo rewrites undo step s, last being the edit it reverts (nil
// when the importer saw none).
func resolveUndo(s *trajectory.Step, last *trajectory.Step) error {
	result := recorded(*s)
	if declined(result) || (result != "" && !undoWorked.MatchString(result)) {
		*s = declinedStep(*s, "undo_edit "+s.Path, result)
		return nil
	}
	if content, ok := restoredFile(result); ok {
		replace(s, trajectory.Step{Action: trajectory.KindWriteFile, Path: s.Path, Content: &content})
		return nil
	}
	if last == nil {
		return fmt.Errorf("the recording shows neither the file restored nor an edit of it to reverse")
	}
	switch {
	case last.Action == trajectory.KindWriteFile:
		replace(s, noop("undo_edit "+s.Path+": a create's undo writes back what it created"))
	case last.Old != nil && last.New != nil && *last.New != "" && !last.All:
		replace(s, trajectory.Step{Action: trajectory.KindEditFile, Path: s.Path, Old: last.New, New: last.Old})
	case last.InsertLine != nil && last.Text != nil:
		n := max(1, strings.Count(strings.TrimSuffix(*last.Text, "\n"), "\n")+1)
		replace(s, trajectory.Step{Action: trajectory.KindEditFile, Path: s.Path,
			Range: &trajectory.Range{Start: *last.InsertLine + 1, End: *last.InsertLine + n}, Text: new(string)})
	default:
		return fmt.Errorf("its result is clipped and the edit it reverts (%s) cannot be reversed from its arguments", describeEdit(*last))
	}
	return nil
}

// restoredFile reads the file an undo wrote back from its result, when
// the result holds it whole.
func restoredFile(result string) (string, bool) {
	m := undoDone.FindStringIndex(result)
	if m == nil || strings.Contains(result, "<response clipped>") {
		return "", false
	}
	body := strings.TrimRight(result[m[1]:], "\n")
	lines := strings.Split(body, "\n")
	out := make([]string, 0, len(lines))
	for i, l := range lines {
		p := numbered.FindStringSubmatch(l)
		if p == nil || p[1] != fmt.Sprint(i+1) {
			return "", false // not the numbered listing of the whole file
		}
		out = append(out, p[2])
	}
	return strings.Join(out, "\n"), true
}

// describeEdit names an edit for an error.
func describeEdit(s trajectory.Step) string {
	switch {
	case s.Old != nil && s.All:
		return "a replace-all"
	case s.Old != nil:
		return "a str_replace that deleted its text"
	case s.Range != nil:
		return "a line-range edit"
	}
	return string(s.Action)
}
