package rock

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// resyncGrace bounds how long an interrupted command may take to give the
// prompt back before its session is declared broken and closed.
const resyncGrace = 5 * time.Second

// runResult is a command's output (cleaned) and status.
type runResult struct {
	Output   string
	ExitCode int
}

// syntaxError is a command bash -n rejected; Msg is bash's message.
type syntaxError struct{ Msg string }

func (e *syntaxError) Error() string { return e.Msg }

// run types command into the session and waits for its prompt. A command
// past timeout is interrupted (Ctrl-C) and errTimeout returned; when the
// shell does not come back, the session is closed. errSessionGone means
// the shell ended (`exit`); the session is then closed too.
func (s *bashSession) run(ctx context.Context, command string, timeout time.Duration) (runResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.touch()
	if s.closed.Load() {
		return runResult{}, errSessionGone
	}
	lines := append(assignLines("__rbx_c", command), runLine)
	if err := s.write(strings.Join(lines, "\n") + "\n"); err != nil {
		s.hangUp()
		return runResult{}, err
	}
	out, status, err := s.await(ctx, time.Now().Add(timeout), len(lines))
	switch {
	case err == nil:
	case err == errSessionGone:
		s.hangUp()
		return runResult{Output: cleanOutput(out), ExitCode: -1}, err
	default: // timeout, or the request went away: stop the command either way
		if rerr := s.interrupt(ctx); rerr != nil {
			s.hangUp()
		}
		return runResult{Output: cleanOutput(out), ExitCode: -1}, err
	}
	if status == syntaxStatus {
		return runResult{}, &syntaxError{Msg: cleanOutput(out)}
	}
	return runResult{Output: cleanOutput(out), ExitCode: status}, nil
}

// interrupt sends Ctrl-C to the foreground job and types a line that
// prints a fresh token, then waits for the token and the prompt after it:
// the session is usable again. Input typed before the Ctrl-C is flushed
// by the terminal.
func (s *bashSession) interrupt(ctx context.Context) error {
	s.seq++
	token := fmt.Sprintf("__rbxY%s_%d_", s.nonce, s.seq)
	if err := s.write("\x03"); err != nil {
		return err
	}
	time.Sleep(50 * time.Millisecond) // let the line discipline flush before typing on
	// The printf format splits the token, so an echo of this line cannot match it.
	line := fmt.Sprintf("stty sane -echo 2>/dev/null; __rbx_s=130; PS1=$__rbx_p; PS2=; printf '__rbxY%%s_%%s_\\n' %s %d\n", s.nonce, s.seq)
	if err := s.write(line); err != nil {
		return err
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), resyncGrace)
	defer cancel()
	saved := s.marker
	s.marker = regexp.MustCompile(regexp.QuoteMeta(token) + `()`)
	_, _, err := s.await(rctx, time.Now().Add(resyncGrace), 1)
	s.marker = saved
	if err != nil {
		return err
	}
	_, _, err = s.await(rctx, time.Now().Add(resyncGrace), 1)
	return err
}

// hangUp marks the session closed and releases its terminal.
func (s *bashSession) hangUp() {
	if s.closed.CompareAndSwap(false, true) {
		_ = s.term.Close()
	}
}

// close ends the session: bash gets SIGHUP (which it passes on to its
// jobs; nohup'ed ones survive, as under ROCK) through an exec in the
// sandbox, because not every backend's terminal delivers a hang-up, and
// the terminal is released. It does not wait for a running command.
func (s *bashSession) close(ctx context.Context, sb sandbox.Sandbox) {
	if s.closed.Load() {
		return
	}
	if s.pid != "" {
		kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		_, _ = sb.Exec(kctx, sandbox.ExecRequest{Mode: sandbox.ModeExec, Timeout: 5 * time.Second,
			Command: "kill -HUP " + s.pid + " 2>/dev/null; sleep 0.2; kill -9 " + s.pid + " 2>/dev/null; true"})
		cancel()
	}
	s.hangUp()
}
