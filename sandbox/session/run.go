package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// Run executes one step in the session. It returns ErrBroken or ErrExited
// (with the partial result) when the shell can no longer be used. A ctx
// cancelled before the step ends stops the step as a timeout would, but Run
// then returns an error wrapping ctx.Err() (and the shell stays usable when
// the step could be killed): cancellation is never reported as TimedOut.
func (s *Shell) Run(ctx context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken != nil {
		return sandbox.ExecResult{}, s.broken
	}
	if err := ctx.Err(); err != nil {
		return sandbox.ExecResult{}, fmt.Errorf("run step: %w", err)
	}
	if err := CheckEnv(req.Env); err != nil {
		return sandbox.ExecResult{}, err
	}
	if code, err := s.endedBetween(); err != nil {
		s.broken = err
		s.Close()
		return sandbox.ExecResult{ExitCode: code}, err
	}
	start := time.Now()
	s.step++
	n := s.step
	kill, sec := fmt.Sprintf("%s-%d-", s.killNonce, n), secret(16)
	if _, err := fmt.Fprint(s.stdin, Script(kill, sec, req)); err != nil {
		s.broken = fmt.Errorf("%w: write: %v", ErrExited, err)
		s.Close()
		return sandbox.ExecResult{Duration: time.Since(start)}, s.broken
	}
	res, err := s.collect(ctx, req.Timeout, kill, sentinel(sec))
	res.Duration = time.Since(start)
	if errors.Is(err, ErrBroken) || errors.Is(err, ErrExited) {
		s.broken = err
		s.Close() // nobody reads this shell's output again
	}
	return res, err
}

// endedBetween reads what the shell printed since the last step without
// waiting, and reports ErrExitedBefore when it shows the shell has exited:
// the supervisor's exit line (with the shell's status), or the end of the
// stream (status -1).
func (s *Shell) endedBetween() (int, error) {
	for {
		select {
		case c, ok := <-s.chunks:
			if !ok {
				return -1, fmt.Errorf("%w: %v", ErrExitedBefore, s.readErr)
			}
			s.pending = append(s.pending, c...)
			continue
		default:
		}
		if code, _, ok := s.exited(s.pending); ok {
			return code, fmt.Errorf("%w: status %d", ErrExitedBefore, code)
		}
		return 0, nil
	}
}

// exited finds the supervisor's exit line in buf: the status and where the
// line starts (the newline ExitScript prints before the marker is not output).
func (s *Shell) exited(buf []byte) (code, at int, ok bool) {
	if len(s.exitMark) == 0 {
		return 0, 0, false
	}
	i := bytes.Index(buf, s.exitMark)
	if i < 0 {
		return 0, 0, false
	}
	rest := buf[i+len(s.exitMark):]
	j := bytes.IndexByte(rest, '\n')
	if j < 0 {
		return 0, 0, false
	}
	code, err := strconv.Atoi(string(rest[:j]))
	if err != nil {
		code = -1
	}
	if i > 0 && buf[i-1] == '\n' {
		i--
	}
	return code, i, true
}

// ValidEnvName reports whether k can name a shell variable: letters,
// digits and _, not starting with a digit. Exec mode checks step
// environments with it as sessions do.
func ValidEnvName(k string) bool {
	for i, c := range k {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return k != ""
}

// collect reads until the step's sentinel, enforcing the timeout. A ctx
// cancelled first stops the step the same way; its error is then wrapped in
// the returned one instead of setting TimedOut.
func (s *Shell) collect(ctx context.Context, timeout time.Duration, marker string, sentinel []byte) (sandbox.ExecResult, error) {
	var res sandbox.ExecResult
	out := &capped{limit: s.outputCap}
	buf := s.pending
	s.pending = nil
	var deadline <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		deadline = t.C
	}
	var grace <-chan time.Time
	var rekill <-chan time.Time
	var cancelled error // ctx's error when it ended the step
	stop := func() {
		out.Write(buf)
		buf = buf[:0]
		out.Close()
		ctx = context.WithoutCancel(ctx)
		grace, rekill = s.interrupt(ctx, marker)
	}
	fail := func(err error) error {
		if cancelled != nil {
			return fmt.Errorf("%w (step cancelled: %w)", err, cancelled)
		}
		return err
	}
	for {
		if code, at, ok := s.exited(buf); ok {
			out.Write(buf[:at])
			res.ExitCode = code
			return out.result(res), fail(fmt.Errorf("%w: status %d", ErrExited, code))
		}
		if i := bytes.Index(buf, sentinel); i >= 0 {
			out.Write(buf[:i])
			rest := buf[i+len(sentinel):]
			if j := bytes.IndexByte(rest, '\n'); j >= 0 {
				code, err := strconv.Atoi(string(rest[:j]))
				if err != nil {
					return out.result(res), fail(fmt.Errorf("%w: bad status %q", ErrBroken, rest[:j]))
				}
				s.pending = append([]byte(nil), rest[j+1:]...)
				res.ExitCode = code
				if res.TimedOut {
					res.ExitCode = sandbox.ExitCodeTimeout
				}
				if cancelled != nil {
					return out.result(res), fmt.Errorf("step cancelled: %w", cancelled)
				}
				return out.result(res), nil
			}
		} else if keep := max(len(sentinel), len(s.exitMark)+1) + 12; len(buf) > keep {
			// Everything but a tail that could hold the start of the sentinel is output.
			out.Write(buf[:len(buf)-keep])
			buf = append([]byte(nil), buf[len(buf)-keep:]...)
		}
		select {
		case c, ok := <-s.chunks:
			if !ok {
				out.Write(buf)
				res.ExitCode = -1
				return out.result(res), fail(fmt.Errorf("%w: %v", ErrExited, s.readErr))
			}
			buf = append(buf, c...)
		case <-deadline:
			deadline = nil
			if cancelled == nil {
				res.TimedOut = true
				stop()
			}
		case <-ctx.Done():
			if !res.TimedOut {
				cancelled = ctx.Err()
				deadline = nil
				stop()
			}
		case <-rekill:
			// Commands the step starts after the first kill are killed in
			// turn, so the rest of a timed-out step does not run on.
			_, rekill = s.interrupt(ctx, marker)
		case <-grace:
			out.Write(buf)
			res.ExitCode = sandbox.ExitCodeTimeout
			if cancelled != nil {
				res.ExitCode = -1
			}
			return out.result(res), fail(ErrBroken)
		}
	}
}

// interrupt kills the step's processes and returns the grace deadline and
// the time of the next kill round.
func (s *Shell) interrupt(ctx context.Context, marker string) (grace, rekill <-chan time.Time) {
	kctx, cancel := context.WithTimeout(ctx, s.grace)
	defer cancel()
	_ = s.kill(kctx, marker) // best effort: the grace timer decides
	return time.After(s.grace), time.After(50 * time.Millisecond)
}

// capped keeps the first limit bytes written and counts the rest. Once
// closed (the step timed out) it ignores further writes: the partial output
// is what the step printed before its deadline.
type capped struct {
	limit  int
	buf    []byte
	total  int64
	closed bool
}

// Close stops accepting output.
func (c *capped) Close() { c.closed = true }

func (c *capped) Write(p []byte) {
	if c.closed {
		return
	}
	c.total += int64(len(p))
	if room := c.limit - len(c.buf); room > 0 {
		if len(p) > room {
			p = p[:room]
		}
		c.buf = append(c.buf, p...)
	}
}

func (c *capped) result(r sandbox.ExecResult) sandbox.ExecResult {
	r.Output = c.buf
	r.OutputBytes = c.total
	r.Truncated = c.total > int64(len(c.buf))
	return r
}
