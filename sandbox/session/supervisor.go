package session

// Supervisor returns the shell script of a session supervisor, the process
// a container backend starts for a session: it runs the session shell (bash
// where the image has it) and then prints the shell's exit status with the
// exit marker, so that the loss is seen at once even when background jobs
// keep the output stream open. It reads the marker from stdin first
// (ReadExitMarker, see WithExitReport): a step can find it in no command
// line or environment. The shell runs in its own session and process group
// (setsid, where the image has it), so that a step killing its process
// group (`kill -9 0`, `kill -- -$$`) ends the shell and not the supervisor.
// The supervisor's own output goes to /dev/null: busybox sh prints
// "Killed" when its child dies of a signal, which is not the step's. The
// shell's stderr joins its stdout, because an engine's two streams do not
// keep their relative order (a `set -v` echo could follow the sentinel).
// then, when not empty, runs after the report with the supervisor's
// original stdout on fd 3 (the docker backend keeps its container alive
// with it).
func Supervisor(then string) string { return supervisor("", ">/dev/null 2>&1", then) }

// SupervisorKeepingStderr is Supervisor for a transport whose stdin ends
// once no process holds the exec's stderr (the kubelet's exec stream): the
// supervisor's stderr stays open, and the caller discards what it prints
// there. prefix runs first (an exec that has no cwd or rlimits of its own
// sets them there); it must end with a separator.
func SupervisorKeepingStderr(prefix string) string { return supervisor(prefix, ">/dev/null", "") }

// supervisor is the supervisor's script: prefix, then the marker read,
// the supervisor's own output sent to quiet, the shell, and then.
func supervisor(prefix, quiet, then string) string {
	s := prefix + ReadExitMarker + "; s=; command -v setsid >/dev/null 2>&1 && s=setsid; exec 3>&1 " + quiet + "; " +
		"b=/bin/sh; command -v bash >/dev/null 2>&1 && b='bash --noprofile --norc'; " +
		// A subshell, so that the redirections are the child's own: busybox
		// sh applies a command's redirections in the parent while it waits.
		"(exec $s $b >&3 2>&3 3>&-); " +
		"{ " + ExitScript + "; } >&3"
	if then != "" {
		s += "; " + then
	}
	return s
}
