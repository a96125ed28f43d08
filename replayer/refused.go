package replayer

import (
	"errors"
	"strings"
	"syscall"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// refusedError is a file action the sandbox refused to the task's user
// (a *sandbox.FileError): the action failed as the same user's shell
// would have, nothing was written. It is an action failure (errAction)
// that reads as the shell reports it ("write /etc/issue: Permission
// denied"), with no prefix.
type refusedError struct{ fe *sandbox.FileError }

func (e refusedError) Error() string        { return e.fe.Error() }
func (e refusedError) Unwrap() error        { return e.fe }
func (e refusedError) Is(target error) bool { return target == errAction }
func (e refusedError) errno() syscall.Errno { return e.fe.Errno }

// fileOutcome is what a file action that failed with err did: a refusal
// becomes the outcome of a failed command (exit 1, the message as its
// output) with a refusedError; other errors stay the sandbox's.
func fileOutcome(out outcome, err error) (outcome, error) {
	fe, ok := errors.AsType[*sandbox.FileError](err)
	if !ok {
		return out, err
	}
	msg := fe.Error()
	return outcome{exitCode: 1, output: msg, bytes: int64(len(msg))}, refusedError{fe}
}

// editOutcome is fileOutcome for an edit the file did not allow: the
// outcome of a failed command, the error kept.
func editOutcome(out outcome, err error) (outcome, error) {
	if me, ok := errors.AsType[mismatchError](err); ok {
		msg := me.Error()
		return outcome{exitCode: 1, output: msg, bytes: int64(len(msg))}, err
	}
	return out, err
}

// failedAsRecorded reports whether err is a failure a recording can hold
// (a refusal, an edit the file did not allow), and its errno (0 for the
// latter).
func failedAsRecorded(err error) (syscall.Errno, bool) {
	if re, ok := errors.AsType[refusedError](err); ok {
		return re.errno(), true
	}
	_, ok := errors.AsType[mismatchError](err)
	return 0, ok
}

// expectsFailure reports whether s's recording says the action failed:
// a file action recorded with a non-zero exit code (importers record an
// agent's failed file tool so; see docs/formats.md).
func expectsFailure(s trajectory.Step) bool {
	return s.Action.File() && s.Observation != nil && s.Observation.ExitCode != nil && *s.Observation.ExitCode != 0
}

// recordedErrno is the errno a failed file action's recorded output names
// in the C library's words ("Permission denied"), or 0.
func recordedErrno(s trajectory.Step) syscall.Errno {
	if s.Observation == nil || s.Observation.Output == "" {
		return 0
	}
	return sandbox.ParseFileRefusal("", "", s.Observation.Output).Errno
}

// notRunnable reports a shell step that exited 126 or 127 (not
// executable, not found: "bash: find_file: command not found") where the
// recording has no exit code to say the agent met the same, and no
// output that compares equal: an agent's tool imported as a shell line,
// which bash cannot run, must not pass for a step that worked.
func notRunnable(p Comparison, s trajectory.Step, out outcome) bool {
	if s.Action != trajectory.KindShell || (out.exitCode != 126 && out.exitCode != 127) {
		return false
	}
	if s.Observation == nil {
		return true
	}
	if s.Observation.ExitCode != nil {
		return false // compared as recorded
	}
	return p == CompareIgnore || s.Observation.OutputSHA256 != "" || !Equal(p, s.Observation.Output, out.output)
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// recordedTimeout reports whether s's recording says the agent's tool
// killed the command at its timeout (Claude Code's "Command timed out
// after 2m 0s"): a timeout on replay is the same outcome.
func recordedTimeout(s trajectory.Step) bool {
	return s.Action == trajectory.KindShell && s.Observation != nil && s.Observation.TimedOut
}
