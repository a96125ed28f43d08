// Package session drives one long-lived shell over a pair of pipes with a
// sentinel protocol. Both the docker backend (an attached exec) and the local
// backend (a child process) run their session mode on it, so cwd, exports and
// background jobs persist between steps without one process per step.
//
// Each step is written to the shell's stdin as (see Script)
//
//	export RBX_STEP=<kill nonce>-<n>-
//	__rbx_u
//	{ __rbx_r; \command eval '<command>'
//	} </dev/null 2>&1; { \command printf '__rbx_%s:%d\n' <secret> "$?"; } 2>/dev/null
//
// and its output is everything the shell writes before the sentinel line
// "__rbx_<secret>:<status>". __rbx_u and __rbx_r (Prelude, defined once per
// shell) turn off `set -v`, `set -x` and history while the shell reads the
// sentinel's line and turn them back on for the step's command. eval keeps
// syntax errors inside the step (they become exit status 2) instead of
// desynchronising the protocol; </dev/null keeps commands from eating the
// protocol stream.
//
// Two values per step, with two roles. RBX_STEP is a kill marker: exported,
// so every process the step execs carries it, which is how a timed-out step
// is killed without touching the shell or earlier background jobs; knowing
// it gives nothing. The secret is fresh random for every step, unrelated to
// RBX_STEP and to other steps, never exported, and only ever part of the
// text the shell reads before the step runs: text a step prints, whatever it
// found in its environment, files, stdin or process list, is output. What a
// step that attacks the shell process itself can still do is in
// docs/sessions.md.
package session

import (
	"context"
	"errors"
	"fmt"
	"io"
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
	killNonce string
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

// WithExitReport says the shell runs under a supervisor that reports its
// exit (default: no supervisor). New then writes a fresh random exit
// marker as the first line of the shell's stdin, which the supervisor reads
// with ReadExitMarker before it starts the shell, and prints with the
// shell's status (ExitScript) when the shell exits. Without a report an
// exited shell is only noticed when its output stream closes, which
// background jobs holding the stream can delay until the step times out.
func WithExitReport() Option {
	return func(s *Shell) { s.exitMark = []byte("__rbx_exit_" + secret(12) + ":") }
}

// WithGrace sets how long a killed step may take to report back before the
// shell is declared broken (default defaultGrace).
func WithGrace(d time.Duration) Option { return func(s *Shell) { s.grace = d } }

// defaultGrace is how long a killed step may take to report back. The kill
// and the report each start processes: on a loaded 2-core host (load 13 and
// more, a dataset benchmark's) they took longer than the 2 s this was, and
// healthy sessions were declared broken; a shell that really stopped
// answering (a builtin loop) is only found out that much later.
const defaultGrace = 5 * time.Second

// New starts the protocol on a shell whose stdin is w and whose stdout (with
// stderr merged or not) is r, and waits for it to answer. kill is used on
// timeouts.
func New(ctx context.Context, w io.Writer, r io.Reader, kill Killer, opts ...Option) (*Shell, error) {
	s := &Shell{
		stdin: w, chunks: make(chan []byte, 16), killNonce: secret(6),
		kill: kill, outputCap: sandbox.DefaultOutputCap, grace: defaultGrace,
		closed: make(chan struct{}),
	}
	for _, o := range opts {
		o(s)
	}
	go s.read(r)
	if len(s.exitMark) > 0 {
		if _, err := fmt.Fprintf(w, "%s\n", s.exitMark); err != nil {
			return nil, fmt.Errorf("start session: write exit marker: %w", err)
		}
	}
	if _, err := io.WriteString(w, Prelude); err != nil {
		return nil, fmt.Errorf("start session: %w", err)
	}
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
