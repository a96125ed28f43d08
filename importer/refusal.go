package importer

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// recordResult records a tool's result on s: the output of a shell step;
// for a file action only a failure (see recordFailure), recognised by its
// words: a refusal for want of a permission or a path (fileRefusal), an
// edit whose text or line the file did not have (editMismatch), or the
// tool declining the action (toolDeclined). A file action's successful
// result stays in the messages only: editors decorate it (line numbers,
// banners) in ways a replay never reproduces.
func recordResult(s *trajectory.Step, result string) {
	switch {
	case s.Action == trajectory.KindKeys:
		s.Observation = &trajectory.Observation{Output: terminusScreen(result)}
	case s.Action == trajectory.KindShell, internalKinds[s.Action]: // the resolve* passes read theirs
		s.Observation = &trajectory.Observation{Output: result}
		if s.Action == trajectory.KindShell && ohLeftNote(result) {
			s.Action = kindLeftRunning // OpenHands' session left it running
		}
	case !s.Action.File():
	case fileRefusal(s, result), editMismatch(s, result), declined(result):
		recordFailure(s, result)
	}
}

// notApplied is how SWE-agent's editors say an edit was rejected, the
// file left unchanged.
const notApplied = "Your changes have NOT been applied"

// toolDeclined matches the first words of a file tool that declined the
// action on a precondition of its own, leaving the file as it was:
// SWE-agent's and OpenHands' editor's create on an existing file or a missing parent, an edit that
// changes nothing, Claude Code's "has not been read yet" and "modified
// since read", a call whose input its schema refused. SWE-agent's linter
// says notApplied after its findings.
var toolDeclined = regexp.MustCompile(`(?i)cannot overwrite files using command|the parent directory .* does not exist|is the same as new_str|no changes to make` +
	`|has not been read yet|has been modified since read|inputvalidationerror|no edit history found`)

// declined reports whether result says the tool declined the action.
func declined(result string) bool {
	return strings.Contains(result, notApplied) || toolDeclined.MatchString(firstLines(result, 3))
}

// editTextMissing matches an editor's words for an edit whose text does
// not occur once, or whose line is outside the file: SWE-agent's and
// OpenHands' str_replace_editor, Claude Code's Edit.
var editTextMissing = regexp.MustCompile(`(?i)no replacement was performed|did not appear verbatim|multiple occurrences of old_str` +
	`|string to replace not found|found \d+ matches of the string to replace|invalid .insert_line. parameter`)

// editMismatch reports whether result says edit s was not made because
// the file did not hold its text or line once: a failure replay meets
// again on the same file, and checks.
func editMismatch(s *trajectory.Step, result string) bool {
	return s.Action == trajectory.KindEditFile && editTextMissing.MatchString(firstLines(result, 3))
}

// recordFailure records that s, a file action, failed when recorded (a
// failure the tool flagged, or one recordResult recognised). Refusals and
// edit mismatches are kept, exit code 1 with the tool's words, so that
// replay expects the same failure (a success there is a divergence).
// Any other failure is the tool declining on a precondition of its own
// (a linter, "read it first", create over an existing file) that replay
// does not reproduce: the file is as before, so the step becomes a noop
// that says why.
func recordFailure(s *trajectory.Step, result string) {
	if !declined(result) && (fileRefusal(s, result) || editMismatch(s, result)) {
		one := 1
		s.Observation = &trajectory.Observation{Output: result, ExitCode: &one}
		return
	}
	*s = declinedStep(*s, fmt.Sprintf("%s %s", s.Action, s.Path), result)
}

// firstLines is the first n lines of s.
func firstLines(s string, n int) string {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return s
		}
		i += j + 1
	}
	return s[:i]
}

// quoteLine is the first line of s, quoted and bounded, for a note.
func quoteLine(s string) string {
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "<tool_use_error>"))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return strconv.Quote(s)
}

// refusedErrnos are the failures a file action meets for want of a
// permission or a path: those the task's user meets again on replay.
var refusedErrnos = map[syscall.Errno]bool{
	syscall.EACCES: true, syscall.EPERM: true, syscall.ENOENT: true, syscall.ENOTDIR: true,
	syscall.EISDIR: true, syscall.EROFS: true, syscall.ENOSPC: true,
}

// errorStart is how the agents' file tools start an error result:
// Python's OSError ("[Errno 13] Permission denied: '/etc/issue'"), the
// editors' "Error:"/"ERROR:", a shell's or a tool's "name: ".
var errorStart = regexp.MustCompile(`^(?i:\[errno \d+\]|error\b|oserror|permissionerror|filenotfounderror|isadirectoryerror|notadirectoryerror|(ba|da)?sh: |cat: |tee: |<tool_use_error>)`)

// nodeErrno is how Node.js (Claude Code's tools) starts a system error:
// "EACCES: permission denied, open '/etc/app.conf'".
var nodeErrno = regexp.MustCompile(`^(?:<tool_use_error>)?(EACCES|EPERM|ENOENT|ENOTDIR|EISDIR|EROFS|ENOSPC): `)

// nodeErrnos are the errnos nodeErrno names.
var nodeErrnos = map[string]syscall.Errno{"EACCES": syscall.EACCES, "EPERM": syscall.EPERM, "ENOENT": syscall.ENOENT,
	"ENOTDIR": syscall.ENOTDIR, "EISDIR": syscall.EISDIR, "EROFS": syscall.EROFS, "ENOSPC": syscall.ENOSPC}

// editorMissing is the str_replace_editor's (SWE-agent, OpenHands) and
// Claude Code's words for a path that is not there.
var editorMissing = regexp.MustCompile(`(?i)\bpath\b.*\bdoes not exist\b|^(<tool_use_error>)?file does not exist\b`)

// fileRefusal reports whether result, the recorded result of file action
// s, says the action was refused for want of a permission or a path:
// its first line starts like an error or names the file, and holds the C
// library's words for such an errno (or the editors' "does not exist").
// A read's content that merely contains those words does not count.
func fileRefusal(s *trajectory.Step, result string) bool {
	if !s.Action.File() {
		return false
	}
	head := strings.TrimSpace(result)
	if i := strings.IndexByte(head, '\n'); i >= 0 && !strings.HasPrefix(strings.ToUpper(head), "ERROR") {
		head = head[:i]
	}
	if len(head) > 600 {
		head = head[:600]
	}
	named := s.Path != "" && (strings.Contains(head, s.Path) || strings.Contains(head, path.Base(s.Path)))
	if !errorStart.MatchString(head) && !named {
		return false
	}
	if editorMissing.MatchString(head) {
		return true
	}
	if m := nodeErrno.FindStringSubmatch(head); m != nil {
		return refusedErrnos[nodeErrnos[m[1]]]
	}
	return refusedErrnos[sandbox.ParseFileRefusal("", "", head).Errno]
}
