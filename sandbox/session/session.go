// Package session drives one long-lived shell over a pair of pipes with a
// sentinel protocol. Both the docker backend (an attached exec) and the local
// backend (a child process) run their session mode on it, so cwd, exports and
// background jobs persist between steps without one process per step.
//
// Each step is written to the shell's stdin as
//
//	export RBX_STEP=<nonce>-<n>-
//	{ eval '<command>'
//	} </dev/null 2>&1; { printf '%s:%d\n' __rbx_<nonce>_<n> "$?"; } 2>/dev/null
//
// and its output is everything the shell writes before the sentinel. eval
// keeps syntax errors inside the step (they become exit status 2) instead of
// desynchronising the protocol; </dev/null keeps commands from eating the
// protocol stream. RBX_STEP marks every process the step execs, which is how a
// timed-out step is killed without touching the shell or earlier background
// jobs.
package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// ErrBroken means the shell did not come back after a timed-out step was
// killed: the caller must discard it and start a new one.
var ErrBroken = errors.New("session shell unresponsive")

// ErrExited means the shell exited (for example the step ran `exit`).
var ErrExited = errors.New("session shell exited")

// ErrExitedBefore means the shell had already exited when a step was to be
// written (killed from outside since the last step): the step did not run.
// errors.Is(err, ErrExited) holds for it too.
var ErrExitedBefore = fmt.Errorf("%w before the step", ErrExited)

// StartCommand is the argv that starts a session shell: bash where the image
// has it, POSIX sh otherwise.
var StartCommand = []string{"/bin/sh", "-c", "if command -v bash >/dev/null 2>&1; then exec bash --noprofile --norc; fi; exec /bin/sh"}

// Killer kills every process whose environment contains RBX_STEP=marker.
type Killer func(ctx context.Context, marker string) error

// Shell is one session shell. It is safe for concurrent use; steps are
// serialised.
type Shell struct {
	mu        sync.Mutex
	stdin     io.Writer
	chunks    chan []byte
	readErr   error
	pending   []byte
	nonce     string
	step      int
	kill      Killer
	outputCap int
	grace     time.Duration
	broken    error
	pid       string
	closed    chan struct{}
	closeOnce sync.Once
	exitMark  []byte
}

// Option configures a Shell.
type Option func(*Shell)

// WithOutputCap sets how many output bytes a step keeps (default sandbox.DefaultOutputCap).
func WithOutputCap(n int) Option { return func(s *Shell) { s.outputCap = n } }

// WithExitMarker names the line a supervisor prints when the shell exits,
// "<marker><status>\n" (default: none). Without it an exited shell is only
// noticed when its output stream closes, which background jobs holding the
// stream can delay until the step times out.
func WithExitMarker(marker string) Option { return func(s *Shell) { s.exitMark = []byte(marker) } }

// ExitScript is the shell code a supervisor runs after the session shell
// to report its exit status with marker (see WithExitMarker).
//
// The marker is split in two arguments so that it never appears whole in
// the supervisor's command line, which a step may print (ps, /proc/1/cmdline).
func ExitScript(marker string) string {
	half := len(marker) / 2
	return `printf '\n%s%s%d\n' ` + Quote(marker[:half]) + " " + Quote(marker[half:]) + ` "$?"`
}

// WithGrace sets how long a killed step may take to report back before the
// shell is declared broken (default 2s).
func WithGrace(d time.Duration) Option { return func(s *Shell) { s.grace = d } }

// New starts the protocol on a shell whose stdin is w and whose stdout (with
// stderr merged or not) is r, and waits for it to answer. kill is used on
// timeouts.
func New(ctx context.Context, w io.Writer, r io.Reader, kill Killer, opts ...Option) (*Shell, error) {
	var b [6]byte
	_, _ = rand.Read(b[:])
	s := &Shell{
		stdin: w, chunks: make(chan []byte, 16), nonce: hex.EncodeToString(b[:]),
		kill: kill, outputCap: sandbox.DefaultOutputCap, grace: 2 * time.Second,
		closed: make(chan struct{}),
	}
	for _, o := range opts {
		o(s)
	}
	go s.read(r)
	res, err := s.Run(ctx, sandbox.ExecRequest{Command: "printf %s $$", Timeout: 30 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("start session: %w", err)
	}
	if res.ExitCode != 0 || res.TimedOut {
		return nil, fmt.Errorf("start session: handshake exit %d: %q", res.ExitCode, res.Output)
	}
	s.pid = string(res.Output)
	return s, nil
}

// PID is the shell's process id as the shell itself sees it.
func (s *Shell) PID() string { return s.pid }

func (s *Shell) read(r io.Reader) {
	for {
		buf := make([]byte, 32<<10)
		n, err := r.Read(buf)
		if n > 0 {
			select {
			case s.chunks <- buf[:n]:
			case <-s.closed:
				return // nobody will read again: do not block forever
			}
		}
		if err != nil {
			s.readErr = err
			close(s.chunks)
			return
		}
	}
}

// Close releases the reader goroutine. The caller kills the shell process
// itself; Close only stops the protocol from waiting on it.
func (s *Shell) Close() {
	s.closeOnce.Do(func() { close(s.closed) })
}

// Script renders the text written to the shell for step n.
func Script(nonce string, n int, req sandbox.ExecRequest) string {
	var b strings.Builder
	// Not in a { } group: bash fails to parse one after an eval's syntax error.
	fmt.Fprintf(&b, "export RBX_STEP=%s-%d-\n", nonce, n)
	body := "command eval " + Quote(req.Command) // "command" keeps eval errors from exiting POSIX sh
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
	// The sentinel is printed from a format and an argument, with the
	// printf's own stderr (where `set -x` traces it) silenced, so that no
	// trace of this line (`set -v`, `set -x`) contains the sentinel whole.
	fmt.Fprintf(&b, "{ %s\n} </dev/null 2>&1; { printf '%%s:%%d\\n' __rbx_%s_%d \"$?\"; } 2>/dev/null\n", body, nonce, n)
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
