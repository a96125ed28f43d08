package sandbox

import (
	"strconv"
)

// Causes a SessionLostError reports.
const (
	// SessionStepEnded: a step ended the shell (`exit`, a failure under
	// `set -e`, a signal to the shell's process group). It is the
	// trajectory's doing, not an infrastructure failure.
	SessionStepEnded = "step_ended_shell"
	// SessionTimeoutKill: a timed-out step could only be stopped by killing
	// the shell (a loop of builtins).
	SessionTimeoutKill = "timeout_killed_shell"
	// SessionOOMKilled: the kernel OOM killer chose the shell itself.
	SessionOOMKilled = "oom_killed"
	// SessionKilledOutside: the shell died between steps, killed from
	// outside the session.
	SessionKilledOutside = "killed_outside"
	// SessionEngineLost: the engine dropped the session's connection while
	// the sandbox itself survived.
	SessionEngineLost = "engine_lost"
)

// SessionLostError is returned by Exec in session mode once the sandbox's
// session shell is gone: the step that ended it reported SessionLost in its
// result, and every later session step fails with this error until the
// session is reopened explicitly (SessionReopener). errors.Is(err,
// ErrSessionLost) holds for it. The sandbox itself is still usable: exec
// mode, file actions and Reopen work.
type SessionLostError struct {
	// ID is the sandbox id.
	ID string
	// Cause is one of the Session* cause constants.
	Cause string
	// ExitCode is the shell's status (128+n for signal n); -1 when unknown.
	ExitCode int
}

// Error names the sandbox, the cause and the shell's status.
func (e *SessionLostError) Error() string {
	msg := "sandbox " + e.ID + ": " + ErrSessionLost.Error() + ": " + e.Cause
	if e.ExitCode >= 0 {
		msg += " (shell exit " + strconv.Itoa(e.ExitCode) + ")"
	}
	return msg
}

// Unwrap returns ErrSessionLost.
func (e *SessionLostError) Unwrap() error { return ErrSessionLost }
