package importer

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"syscall"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// recordResult records a tool's result on s: the output of a shell step;
// for a file action only a failure (see fileRefusal), as exit code 1 with
// the tool's words, so that replay expects the same failure (a success
// there is a divergence). A file action's successful result stays in the
// messages only: editors decorate it (line numbers, banners) in ways a
// replay never reproduces.
func recordResult(s *trajectory.Step, result string) {
	switch {
	case s.Action.File() && strings.Contains(result, notApplied):
		// The agent's tool rejected the change (SWE-agent lints an edit
		// and applies it only when it adds no syntax error): the file is
		// as before, so replay does nothing here either.
		*s = trajectory.Step{Action: trajectory.KindNoop, Tokens: s.Tokens, Messages: s.Messages,
			Note: fmt.Sprintf("%s %s not applied by the agent's tool (%q)", s.Action, s.Path, notApplied)}
	case s.Action == trajectory.KindShell:
		s.Observation = &trajectory.Observation{Output: result}
	case fileRefusal(s, result):
		recordFailure(s, result)
	}
}

// notApplied is how SWE-agent's editors say an edit was rejected, the
// file left unchanged.
const notApplied = "Your changes have NOT been applied"

// recordFailure records that s, a file action, failed when recorded.
func recordFailure(s *trajectory.Step, result string) {
	one := 1
	s.Observation = &trajectory.Observation{Output: result, ExitCode: &one}
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
var errorStart = regexp.MustCompile(`^(?i:\[errno \d+\]|error\b|oserror|permissionerror|filenotfounderror|isadirectoryerror|notadirectoryerror|(ba|da)?sh: |cat: |tee: )`)

// editorMissing is the str_replace_editor's (SWE-agent, OpenHands) words
// for a path that is not there.
var editorMissing = regexp.MustCompile(`(?i)\bpath\b.*\bdoes not exist\b`)

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
	return refusedErrnos[sandbox.ParseFileRefusal("", "", head).Errno]
}
