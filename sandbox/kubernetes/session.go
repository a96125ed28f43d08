package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// restartTimeout bounds the inspection and clean-up after a lost session,
// which run even when the step's context was cancelled.
const restartTimeout = 30 * time.Second

var _ sandbox.SessionReopener = (*Sandbox)(nil)

// shellConn is a session shell running in one exec under a supervisor that
// reports its exit status (see supervisor).
type shellConn struct {
	shell *session.Shell
	proc  *proc
	stdin *io.PipeWriter
	out   *io.PipeReader
}

// close hangs up: the shell sees EOF on stdin and exits; output nobody will
// read is discarded so that the copy does not block.
func (c *shellConn) close() {
	if c.shell != nil {
		c.shell.Close()
	}
	c.stdin.Close()
	c.out.Close()
	if c.proc != nil {
		c.proc.cancel()
	}
}

// supervisor runs the session shell (bash where the image has it), then
// prints its exit status with the exit marker, so that the loss is seen at
// once even when background jobs keep the output stream open; it is the
// containerd backend's supervisor (see there), after the ulimits and the
// workdir (an exec has no cwd or rlimits of its own), with one difference:
// its stderr stays open (openSession discards what it prints, such as
// busybox sh's "Killed"), because the exec stream's stdin ends once no
// process holds the exec's stderr.
func (s *Sandbox) supervisor() []string {
	return []string{"/bin/sh", "-c", s.wrap() + session.ReadExitMarker + "; s=; command -v setsid >/dev/null 2>&1 && s=setsid; exec 3>&1 >/dev/null; " +
		"b=/bin/sh; command -v bash >/dev/null 2>&1 && b='bash --noprofile --norc'; " +
		"(exec $s $b >&3 2>&3 3>&-); " +
		"{ " + session.ExitScript + "; } >&3"}
}

// openSession starts a supervised session shell in an exec and runs the
// protocol's handshake on it. A shell that exits during the handshake is
// started again (a few times): the kubelet's exec stream sometimes starts
// a process whose stdin is already at its end (see fileExec), and a shell
// on such a stdin exits at once.
func (s *Sandbox) openSession(ctx context.Context) (*shellConn, error) {
	for try := 1; ; try++ {
		c, err := s.openSessionOnce(ctx)
		if err == nil || !errors.Is(err, session.ErrExited) || try == stdinTries || ctx.Err() != nil {
			return c, err
		}
		s.rt.cfg.log.Debug("session shell ended during the handshake; again", "sandbox", s.id, "try", try, "err", err)
	}
}

func (s *Sandbox) openSessionOnce(ctx context.Context) (*shellConn, error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &shellConn{stdin: inW, out: outR}
	pr, err := s.runErr(ctx, s.supervisor(), inR, outW, io.Discard)
	if err != nil {
		c.close()
		return nil, fmt.Errorf("open session: %w", err)
	}
	c.proc = pr
	go func() {
		st := <-pr.status
		s.rt.cfg.log.Debug("session stream ended", "sandbox", s.id, "code", st.code, "err", st.err)
		outW.CloseWithError(st.err) // nil: EOF
	}()
	sh, err := session.New(ctx, inW, outR, s.killStepErr, session.WithOutputCap(s.outputCap), session.WithExitReport())
	if err != nil {
		c.close()
		if ctx.Err() != nil { // the handshake saw a cancelled ctx as a timeout
			return nil, fmt.Errorf("open session: %w: %w", ctx.Err(), err)
		}
		return nil, fmt.Errorf("open session: %w", err)
	}
	c.shell = sh
	return c, nil
}

func (s *Sandbox) currentSession() *shellConn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sess
}

// swapSession installs c and returns the session it replaces.
func (s *Sandbox) swapSession(c *shellConn) *shellConn {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.sess
	s.sess = c
	return old
}

func (s *Sandbox) killStepErr(ctx context.Context, marker string) error {
	_, _, err := s.runShort(ctx, session.KillScript(marker), nil, nil)
	return err
}

// execSession runs req in the session shell. A shell that exits during the
// step, or must be killed to stop it, is not replaced: the step's result
// reports SessionLost and later steps fail with a *sandbox.SessionLostError
// until Reopen. A sandbox opened by id starts its first session here.
func (s *Sandbox) execSession(ctx context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error) {
	s.stepMu.Lock()
	defer s.stepMu.Unlock()
	if s.lost != nil {
		return sandbox.ExecResult{}, fmt.Errorf("exec in %s: %w", s.id, s.lost)
	}
	cur := s.currentSession()
	if cur == nil {
		if err := s.checkRunning(ctx); err != nil {
			return sandbox.ExecResult{}, fmt.Errorf("exec in %s: %w", s.id, err)
		}
		var err error
		if cur, err = s.openSession(ctx); err != nil {
			return sandbox.ExecResult{}, fmt.Errorf("exec in %s: %w", s.id, s.gone(ctx, err))
		}
		s.swapSession(cur)
	}
	res, err := cur.shell.Run(ctx, req)
	if err == nil {
		s.markOOM(ctx, &res)
		return res, nil
	}
	if !errors.Is(err, session.ErrBroken) && !errors.Is(err, session.ErrExited) {
		return res, fmt.Errorf("exec in %s: %w", s.id, err) // a cancelled ctx, bad input
	}
	res, lerr := s.loseSession(ctx, cur, res, err)
	if lerr != nil {
		return res, fmt.Errorf("exec in %s: %w", s.id, lerr)
	}
	if cerr := ctx.Err(); cerr != nil && errors.Is(err, cerr) {
		return res, fmt.Errorf("exec in %s: session lost while the step was cancelled: %w", s.id, cerr)
	}
	return res, nil
}

// loseSession records the end of the session shell old, which Run reported
// with err. When the pod itself is gone the loss is the sandbox's (a
// *sandbox.GoneError is returned); otherwise it is the step's, reported in
// res.SessionLost, or (when the shell was gone before the step ran) a
// *sandbox.SessionLostError.
func (s *Sandbox) loseSession(ctx context.Context, old *shellConn, res sandbox.ExecResult, err error) (sandbox.ExecResult, error) {
	s.swapSession(nil)
	defer old.close()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restartTimeout)
	defer cancel()
	if gerr := s.checkRunning(rctx); gerr != nil {
		return res, gerr
	}
	lost := &sandbox.SessionLostError{ID: s.id, Cause: sandbox.SessionStepEnded, ExitCode: -1}
	if errors.Is(err, session.ErrExitedBefore) { // the step never ran
		lost.Cause, lost.ExitCode = sandbox.SessionKilledOutside, res.ExitCode
		s.lost = lost
		s.rt.cfg.log.Info("session lost", "sandbox", s.id, "cause", lost.Cause, "exit", lost.ExitCode)
		return sandbox.ExecResult{}, lost
	}
	if errors.Is(err, session.ErrBroken) || res.TimedOut {
		lost.Cause = sandbox.SessionTimeoutKill
		if _, _, kerr := s.runShort(rctx, "kill -9 "+old.shell.PID(), nil, nil); kerr != nil {
			s.rt.cfg.log.Warn("kill broken session shell", "sandbox", s.id, "pid", old.shell.PID(), "err", kerr)
		}
	} else {
		lost.ExitCode = res.ExitCode // the supervisor reported the shell's status
		s.markOOM(rctx, &res)        // the OOM killer may have chosen the shell itself
		if res.OOMKilled {
			lost.Cause = sandbox.SessionOOMKilled
		}
	}
	s.rt.cfg.log.Info("session lost", "sandbox", s.id, "cause", lost.Cause, "exit", lost.ExitCode)
	s.lost = lost
	res.SessionLost = true
	return res, nil
}

// Reopen discards the session shell, lost or not, and starts a fresh one:
// it begins in the workdir with the sandbox's own environment.
func (s *Sandbox) Reopen(ctx context.Context) error {
	s.stepMu.Lock()
	defer s.stepMu.Unlock()
	if old := s.swapSession(nil); old != nil {
		if s.lost == nil && old.shell != nil { // still alive: end it so it cannot run on
			kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), killGrace)
			_, _, _ = s.runShort(kctx, "kill -9 "+old.shell.PID(), nil, nil)
			cancel()
		}
		old.close()
	}
	sess, err := s.openSession(ctx)
	if err != nil {
		return fmt.Errorf("reopen session in %s: %w", s.id, s.gone(ctx, err))
	}
	s.swapSession(sess)
	s.lost = nil
	s.rt.cfg.log.Info("session reopened", "sandbox", s.id)
	return nil
}
