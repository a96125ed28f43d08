package importer

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// kindPatch is Codex's apply_patch: files added, deleted, updated by
// hunks of context, removed and added lines, moved — in its own patch
// format ("*** Begin Patch" … "*** End Patch"). resolvePatches turns it
// into rbx's actions once its result is known: a file added is a
// write_file, a hunk an edit_file of its old lines to its new ones, a
// deletion or a move a shell rm or mv. A patch its tool refused changed
// nothing (Codex checks every hunk before it writes) and is a noop.
const kindPatch trajectory.Kind = "apply_patch"

// patchOp is one file operation of a patch.
type patchOp struct {
	kind   string // "add", "delete", "update"
	path   string
	moveTo string
	lines  []string // add: the file's lines
	hunks  []patchHunk
}

// patchHunk is one @@ section: the lines it expects and the lines it
// leaves, and whether it is anchored at the end of the file.
type patchHunk struct {
	old, new []string
	eof      bool
}

// patchCall matches a shell command that runs apply_patch with the patch
// in a heredoc, as Codex's model writes it in a shell call.
var patchCall = regexp.MustCompile(`(?s)^\s*(?:cd\s+([^\s;&|'"]+)\s*&&\s*)?apply_patch\s+<<-?\s*['"]?(\w+)['"]?\n(.*)\n(\w+)\s*$`)

// patchOf returns the patch a shell command applies, if it is one:
// apply_patch with the patch as its argument or in a heredoc, and the
// directory a leading cd moves to (its relative paths are from there).
func patchOf(command string) (patch, dir string, ok bool) {
	if m := patchCall.FindStringSubmatch(command); m != nil && m[2] == m[4] {
		return m[3], m[1], true
	}
	c := strings.TrimSpace(command)
	if rest, ok := strings.CutPrefix(c, "apply_patch "); ok {
		rest = strings.TrimSpace(rest)
		if strings.HasPrefix(rest, "'*** Begin Patch") && strings.HasSuffix(rest, "'") {
			return strings.ReplaceAll(rest[1:len(rest)-1], `'\''`, `'`), "", true
		}
	}
	return "", "", false
}

// under is p from directory dir: p itself when absolute or dir is "".
func under(dir, p string) string {
	if dir == "" || path.IsAbs(p) {
		return p
	}
	return path.Join(dir, p)
}

// parsePatch reads a patch in Codex's format.
func parsePatch(patch string) ([]patchOp, error) {
	lines := strings.Split(strings.TrimRight(strings.ReplaceAll(patch, "\r\n", "\n"), "\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	if len(lines) < 2 || strings.TrimSpace(lines[0]) != "*** Begin Patch" || strings.TrimSpace(lines[len(lines)-1]) != "*** End Patch" {
		return nil, fmt.Errorf("expected a patch between \"*** Begin Patch\" and \"*** End Patch\"")
	}
	var ops []patchOp
	var op *patchOp
	var h *patchHunk
	for n, l := range lines[1 : len(lines)-1] {
		line := n + 2
		switch {
		case strings.HasPrefix(l, "*** Add File: "), strings.HasPrefix(l, "*** Delete File: "), strings.HasPrefix(l, "*** Update File: "):
			kind, path, _ := strings.Cut(strings.TrimPrefix(l, "*** "), " File: ")
			ops = append(ops, patchOp{kind: strings.ToLower(kind), path: strings.TrimSpace(path)})
			op, h = &ops[len(ops)-1], nil
		case op == nil:
			return nil, fmt.Errorf("line %d: %q before any \"*** … File:\" header", line, l)
		case op.kind == "add":
			text, ok := strings.CutPrefix(l, "+")
			if !ok {
				return nil, fmt.Errorf("line %d: an added file's line must start with '+'", line)
			}
			op.lines = append(op.lines, text)
		case op.kind == "delete":
			return nil, fmt.Errorf("line %d: a deleted file takes no lines", line)
		case strings.HasPrefix(l, "*** Move to: "):
			op.moveTo = strings.TrimSpace(strings.TrimPrefix(l, "*** Move to: "))
		case strings.HasPrefix(l, "@@"):
			op.hunks = append(op.hunks, patchHunk{})
			h = &op.hunks[len(op.hunks)-1]
		case l == "*** End of File":
			if h == nil {
				return nil, fmt.Errorf("line %d: end of file outside a hunk", line)
			}
			h.eof = true
		default:
			if h == nil { // the first hunk may omit its @@
				op.hunks = append(op.hunks, patchHunk{})
				h = &op.hunks[len(op.hunks)-1]
			}
			if l == "" {
				l = " " // an empty context line, its space trimmed by the model
			}
			switch l[0] {
			case ' ':
				h.old, h.new = append(h.old, l[1:]), append(h.new, l[1:])
			case '-':
				h.old = append(h.old, l[1:])
			case '+':
				h.new = append(h.new, l[1:])
			default:
				return nil, fmt.Errorf("line %d: %q: expected a hunk line starting with ' ', '-' or '+'", line, l)
			}
		}
	}
	return ops, nil
}

// patchSteps are the rbx actions of ops, in order.
func patchSteps(ops []patchOp) ([]trajectory.Step, error) {
	var out []trajectory.Step
	for _, op := range ops {
		switch op.kind {
		case "add":
			content := strings.Join(op.lines, "\n") + "\n"
			out = append(out, trajectory.Step{Action: trajectory.KindWriteFile, Path: op.path, Content: &content})
		case "delete":
			out = append(out, trajectory.Step{Action: trajectory.KindShell, Command: "rm -- " + shellQuote(op.path)})
		case "update":
			for i, h := range op.hunks {
				s, err := hunkStep(op.path, h)
				if err != nil {
					return nil, fmt.Errorf("%s, hunk %d: %w", op.path, i+1, err)
				}
				if s != nil {
					out = append(out, *s)
				}
			}
			if op.moveTo != "" {
				out = append(out, trajectory.Step{Action: trajectory.KindShell,
					Command: "mv -- " + shellQuote(op.path) + " " + shellQuote(op.moveTo)})
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the patch changes nothing")
	}
	return out, nil
}

// hunkStep is the edit of one hunk: its old lines replaced by its new
// ones (whole lines: each ends with its newline); lines added to a file
// with no context are appended. A hunk that changes nothing is nil.
func hunkStep(path string, h patchHunk) (*trajectory.Step, error) {
	if strings.Join(h.old, "\n") == strings.Join(h.new, "\n") && len(h.old) > 0 {
		return nil, nil
	}
	if len(h.old) == 0 {
		text := strings.Join(h.new, "\n") + "\n"
		return &trajectory.Step{Action: trajectory.KindShell,
			Command: "printf '%s' " + shellQuote(text) + " >> " + shellQuote(path)}, nil
	}
	old := strings.Join(h.old, "\n") + "\n"
	repl := ""
	if len(h.new) > 0 {
		repl = strings.Join(h.new, "\n") + "\n"
	}
	return &trajectory.Step{Action: trajectory.KindEditFile, Path: path, Old: &old, New: &repl}, nil
}

// patchStep maps an apply_patch call: the patch is its input (Codex's
// custom tool call, as Harbor keeps it), or its patch or diff argument.
func patchStep(args map[string]any) (trajectory.Step, error) {
	for _, k := range []string{"input", "patch", "diff"} {
		if p, ok := args[k].(string); ok && p != "" {
			return trajectory.Step{Action: kindPatch, Command: p}, nil
		}
	}
	return trajectory.Step{}, fmt.Errorf("missing the patch (input)")
}

// patchFailed matches the first words of apply_patch refusing a patch.
var patchFailed = regexp.MustCompile(`(?i)^(error|apply_patch verification failed|failed to (apply|find)|invalid (patch|hunk))`)

// resolvePatches expands each apply_patch into its actions (the call's
// messages and tokens on the first); a patch its tool refused is a noop,
// one rbx cannot read is an error naming the step.
func resolvePatches(steps []trajectory.Step) ([]trajectory.Step, error) {
	var out []trajectory.Step
	for i, s := range steps {
		if s.Action != kindPatch {
			out = append(out, s)
			continue
		}
		if failedWhenRecorded(s) || patchFailed.MatchString(strings.TrimSpace(recorded(s))) {
			out = append(out, declinedStep(s, "apply_patch", recorded(s)))
			continue
		}
		ops, err := parsePatch(s.Command)
		var expanded []trajectory.Step
		if err == nil {
			for j := range ops { // relative to the directory the tool ran in
				ops[j].path, ops[j].moveTo = under(s.Cwd, ops[j].path), under(s.Cwd, ops[j].moveTo)
			}
			expanded, err = patchSteps(ops)
		}
		if err != nil {
			return nil, fmt.Errorf("step %d (apply_patch): %w", i, err)
		}
		expanded[0].Tokens, expanded[0].Messages = s.Tokens, s.Messages
		out = append(out, expanded...)
	}
	return out, nil
}
