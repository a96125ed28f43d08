package local

import (
	"context"
	"errors"
	"fmt"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

var _ sandbox.SessionReopener = (*Sandbox)(nil)

// session returns the sandbox's session shell, starting one when the sandbox
// has none yet (a new or opened sandbox). A shell that ended is never
// replaced here: its loss is returned as a *sandbox.SessionLostError.
func (s *Sandbox) session(ctx context.Context) (*shellProc, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.removed {
		return nil, s.gone("removed by this process")
	}
	if s.lost != nil {
		return nil, s.lost
	}
	if s.shell != nil {
		if !s.shell.exited() {
			return s.shell, nil
		}
		// Killed from outside since the last step.
		code, _ := s.shell.exitCode()
		s.loseLocked(sandbox.SessionKilledOutside, code)
		return nil, s.lost
	}
	sh, err := startShell(ctx, s.workdir, s.env, s.ulimits(), s.meta.OutputCap, s.rt.cfg.grace)
	if err != nil {
		return nil, err
	}
	s.shell = sh
	return sh, nil
}

// loseLocked records the loss of the current shell and stops it. s.mu is held.
func (s *Sandbox) loseLocked(cause string, code int) {
	if s.shell != nil {
		s.shell.stop()
		s.shell = nil
	}
	s.lost = &sandbox.SessionLostError{ID: s.id, Cause: cause, ExitCode: code}
}

// Reopen discards the session shell, lost or not, and starts a fresh one in
// the workdir with the sandbox's own environment.
func (s *Sandbox) Reopen(ctx context.Context) error {
	if err := s.alive(); err != nil {
		return fmt.Errorf("reopen session in sandbox %q: %w", s.id, err)
	}
	s.mu.Lock()
	if s.shell != nil {
		s.shell.stop()
		s.shell = nil
	}
	s.lost = nil
	s.mu.Unlock()
	if _, err := s.session(ctx); err != nil {
		return fmt.Errorf("reopen session in sandbox %q: %w", s.id, err)
	}
	return nil
}

// runSession runs req in the session shell. A step that ends the shell
// returns its result with SessionLost set; the session is not replaced.
func (s *Sandbox) runSession(ctx context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error) {
	sh, err := s.session(ctx)
	if err != nil {
		return sandbox.ExecResult{}, err
	}
	res, err := sh.shell.Run(ctx, req)
	if !errors.Is(err, session.ErrBroken) && !errors.Is(err, session.ErrExited) {
		return res, err // nil, a cancelled ctx, or bad input
	}
	if errors.Is(err, session.ErrExitedBefore) { // the step never ran
		code, _ := sh.exitCode()
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.shell == sh {
			s.loseLocked(sandbox.SessionKilledOutside, code)
		}
		if s.lost == nil {
			return sandbox.ExecResult{}, err
		}
		return sandbox.ExecResult{}, s.lost
	}
	cause := sandbox.SessionStepEnded
	if errors.Is(err, session.ErrBroken) || res.TimedOut {
		cause = sandbox.SessionTimeoutKill
	}
	code := -1
	if errors.Is(err, session.ErrExited) {
		if c, ok := sh.exitCode(); ok {
			code = c
			if !res.TimedOut {
				res.ExitCode = c // `exit 3` reports 3
			}
		}
	}
	res.SessionLost = true
	s.mu.Lock()
	if s.shell == sh {
		s.loseLocked(cause, code)
	}
	s.mu.Unlock()
	if cerr := ctx.Err(); cerr != nil && errors.Is(err, cerr) {
		return res, fmt.Errorf("session lost while the step was cancelled: %w", cerr)
	}
	return res, nil
}
