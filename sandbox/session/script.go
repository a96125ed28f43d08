package session

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// sentinelPrefix starts every step's sentinel line; a fresh secret follows.
const sentinelPrefix = "__rbx_"

// exitVar is the supervisor's variable holding the exit marker.
const exitVar = "__rbx_exit"

// ReadExitMarker is the shell code a supervisor runs first, before it
// starts the session shell: it reads the exit marker, which the protocol
// writes as the first line of the shared stdin (see WithExitReport). The
// marker therefore never appears in any process's command line or
// environment, where a step could read it and report a fake exit.
const ReadExitMarker = "IFS= read -r " + exitVar

// ExitScript is the shell code a supervisor runs after the session shell
// to report its exit status with the marker ReadExitMarker read.
const ExitScript = `printf '\n%s%d\n' "$` + exitVar + `" "$?"`

// secret returns n random bytes in hex.
func secret(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// sentinel is the text that, followed by ":<status>\n", ends a step.
func sentinel(secret string) []byte { return []byte(sentinelPrefix + secret + ":") }

// Prelude defines the two functions every step calls, once per shell (New
// writes it before the first step; inlined, they would more than double the
// text bash reads a byte at a time for every step). __rbx_u, at the start of a
// step, turns off what would copy the rest of the step's text where a step
// can see it: `set -v` (echoed onto the output stream), `set -x` (a trace
// of the sentinel's printf) and bash's history (`history` lists the lines
// read). __rbx_r turns them back on for the step's own command. Each step
// calls them bare, which costs the least: every byte of a step is a read
// system call for bash. A step that removes them (unset -f) gets "command
// not found" in its later outputs and loses that protection.
const Prelude = `__rbx_u() { __rbx_f=$-; set +vx; case ${SHELLOPTS-} in *history*) __rbx_f=/$__rbx_f; set +o history;; esac; } 2>/dev/null
__rbx_r() { case $__rbx_f in *v*) set -v;; esac; case $__rbx_f in *x*) set -x;; esac; case $__rbx_f in /*) set -o history;; esac; unset __rbx_f; } 2>/dev/null
`

// Script renders the text written to the shell for one step: kill is the
// step's RBX_STEP value (it marks the step's processes and is no secret),
// secret is the step's sentinel secret (fresh for every step, never
// exported, and read by the shell only as part of this text).
func Script(kill, secret string, req sandbox.ExecRequest) string {
	var b strings.Builder
	// First and not in a { } group: bash fails to parse a group right after
	// an eval's syntax error.
	fmt.Fprintf(&b, "export RBX_STEP=%s\n__rbx_u\n", kill)
	// "command" keeps eval errors from exiting POSIX sh; the backslash keeps
	// an alias named command from replacing it.
	body := `\command eval ` + Quote(req.Command)
	if req.Cwd != "" || len(req.Env) > 0 {
		var pre []string
		if req.Cwd != "" {
			pre = append(pre, "cd -- "+Quote(req.Cwd))
		}
		keys := make([]string, 0, len(req.Env))
		for k := range req.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			pre = append(pre, "export "+k+"="+Quote(req.Env[k]))
		}
		// A subshell so that the step's cwd and env do not leak into the session.
		body = "( " + strings.Join(pre, " && ") + " && " + body + "\n)"
	}
	// The sentinel is on the line that closes the step's group, so the
	// shell has read it (and the pipe holds nothing of it) before the step
	// runs; the step's stdin is /dev/null. It is printed from a format and
	// an argument, with printf's stderr (where a trace would go) silenced,
	// so no copy of this line contains the sentinel whole.
	fmt.Fprintf(&b, "{ __rbx_r; %s\n} </dev/null 2>&1; { \\command printf '%s%%s:%%d\\n' %s \"$?\"; } 2>/dev/null\n",
		body, sentinelPrefix, secret)
	return b.String()
}

// Quote returns s as a single-quoted shell word.
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// KillScript is a POSIX sh script that kills every process carrying the
// step marker; backends without a process API run it in the sandbox.
func KillScript(marker string) string {
	return `for d in /proc/[0-9]*; do case "$(tr '\0' '\n' < "$d/environ" 2>/dev/null)" in *"RBX_STEP=` +
		marker + `"*) kill -9 "${d#/proc/}" 2>/dev/null;; esac; done; true`
}
