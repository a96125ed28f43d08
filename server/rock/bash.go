package rock

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// A ROCK session is an interactive bash (job control on, so a background
// job prints "[1] 1234") on a terminal in the sandbox, driven by its
// prompt. PS1 is set to a marker that carries a per-session nonce and the
// last command's status, "\n__rbx<nonce>_<status>_\n"; a command's output
// is what the terminal shows between the prompt before it and the next
// marker. A command is typed as assignments of its text to __rbx_c (see
// assignLines), then one run line that checks its syntax with `bash -n`
// (as ROCK does, so a syntax error is reported with bash's own message
// and never desynchronises the shell) and evals it. eval at the prompt
// keeps everything a typed command has: cwd, variables, functions and
// jobs persist, `exit` ends the session.

// Errors of a session command.
var (
	// errSessionGone: the shell exited (the command ran `exit`) or the
	// session was closed.
	errSessionGone = errors.New("session shell exited")
	// errTimeout: the command outlived its timeout; it was interrupted.
	errTimeout = errors.New("timeout")
)

// syntaxStatus is the status the run line reports for a command bash -n
// rejected; no command can exit with it.
const syntaxStatus = 258

// runLine checks the syntax of $__rbx_c, runs it, and puts the protocol's
// prompt back (the command may have changed PS1, as venv activation does).
const runLine = `if __rbx_e=$(/bin/bash -n 2>&1 <<<"$__rbx_c"); then eval "$__rbx_c"; __rbx_s=$?; ` +
	`else printf '%s\n' "$__rbx_e"; __rbx_s=258; fi; PS1=$__rbx_p; PS2=; PS0=; unset PROMPT_COMMAND`

// markerTail is longer than any marker: that many bytes at the end of the
// output are held back until the next read, so a marker split between two
// reads is still found.
const markerTail = 64

// bashSession is one named session of a sandbox.
type bashSession struct {
	name      string
	term      sandbox.TerminalProcess
	marker    *regexp.Regexp
	nonce     string
	chunks    chan []byte
	pending   []byte
	pid       string
	outputCap int
	mu        sync.Mutex // one command at a time
	used      atomic.Int64
	closed    atomic.Bool
	seq       int
}

func newBashSession(name string, term sandbox.TerminalProcess, outputCap int) *bashSession {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	nonce := hex.EncodeToString(b)
	s := &bashSession{name: name, term: term, nonce: nonce, outputCap: outputCap,
		marker: regexp.MustCompile(`__rbx` + nonce + `_(\d+)_`), chunks: make(chan []byte, 16)}
	s.touch()
	go s.read()
	return s
}

func (s *bashSession) touch()                         { s.used.Store(time.Now().UnixNano()) }
func (s *bashSession) idle(t time.Time) time.Duration { return t.Sub(time.Unix(0, s.used.Load())) }

func (s *bashSession) read() {
	defer close(s.chunks)
	for {
		buf := make([]byte, 32<<10)
		n, err := s.term.Read(buf)
		if n > 0 {
			s.chunks <- buf[:n]
		}
		if err != nil {
			return
		}
	}
}

// write types text into the terminal.
func (s *bashSession) write(text string) error {
	if _, err := io.WriteString(s.term, text); err != nil {
		return fmt.Errorf("%w: %v", errSessionGone, err)
	}
	return nil
}

// await reads until the n-th marker from now and returns what the
// terminal showed between the (n-1)-th and the n-th (at most outputCap
// bytes) and the status the n-th carries.
func (s *bashSession) await(ctx context.Context, deadline time.Time, n int) ([]byte, int, error) {
	buf, out := s.pending, []byte(nil)
	s.pending = nil
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for seen := 0; ; {
		for {
			loc := s.marker.FindSubmatchIndex(buf)
			if loc == nil {
				break
			}
			if seen++; seen == n {
				out = s.capped(out, buf[:loc[0]])
				status, _ := strconv.Atoi(string(buf[loc[2]:loc[3]]))
				s.pending = buf[loc[1]:]
				return out, status, nil
			}
			buf = buf[loc[1]:]
		}
		if cut := len(buf) - markerTail; cut > 0 {
			if seen == n-1 {
				out = s.capped(out, buf[:cut])
			}
			buf = append([]byte(nil), buf[cut:]...)
		}
		select {
		case c, ok := <-s.chunks:
			if !ok {
				return s.capped(out, buf), -1, errSessionGone
			}
			buf = append(buf, c...)
		case <-timer.C:
			s.pending = buf
			return out, -1, errTimeout
		case <-ctx.Done():
			s.pending = buf
			return out, -1, ctx.Err()
		}
	}
}

func (s *bashSession) capped(out, more []byte) []byte {
	if room := s.outputCap - len(out); room > 0 {
		out = append(out, more[:min(room, len(more))]...)
	}
	return out
}
