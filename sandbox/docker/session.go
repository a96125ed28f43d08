package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// restartTimeout bounds the inspection and clean-up after a lost session,
// which run even when the step's context was cancelled.
const restartTimeout = 30 * time.Second

var _ sandbox.SessionReopener = (*Sandbox)(nil)

// shellConn is a session shell attached through one exec, or the
// container's own shell (execID empty) supervised by mainSession.
type shellConn struct {
	shell      *session.Shell
	execID     string
	supervised bool // the container's own shell, whose supervisor reports its exit
	hj         types.HijackedResponse
}

// close releases the protocol and hangs up; the shell sees EOF on stdin and
// exits.
func (c *shellConn) close() {
	if c.shell != nil {
		c.shell.Close()
	}
	c.hj.Close()
}

// attachSession runs the protocol on the container's own shell (see
// mainSession), attached before the container starts: no exec is created,
// which is what keeps rbx's creation rate at the engine's own.
func (s *Sandbox) attachSession(ctx context.Context) (*shellConn, error) {
	hj, err := s.rt.cli.ContainerAttach(ctx, s.id, container.AttachOptions{Stream: true, Stdin: true, Stdout: true, Stderr: true})
	if err != nil {
		return nil, fmt.Errorf("attach session: %w", engineErr(err))
	}
	return &shellConn{hj: hj, supervised: true}, nil
}

// startProtocol runs the session handshake on an attached stream.
func (s *Sandbox) startProtocol(ctx context.Context, c *shellConn) error {
	pr, pw := io.Pipe()
	go func() {
		_, err := stdcopy.StdCopy(pw, pw, c.hj.Reader)
		if err == nil {
			err = io.EOF
		}
		pw.CloseWithError(err)
	}()
	opts := []session.Option{session.WithOutputCap(s.outputCap)}
	if c.supervised {
		opts = append(opts, session.WithExitReport())
	}
	sh, err := session.New(ctx, c.hj.Conn, pr, s.killStepErr, opts...)
	if err != nil {
		c.hj.Close()
		if ctx.Err() != nil { // the handshake saw a cancelled ctx as a timeout
			return fmt.Errorf("%w: %w", ctx.Err(), err)
		}
		return err
	}
	c.shell = sh
	return nil
}

// openSession starts a session shell in an attached exec: used when the
// container's own shell is gone (it exited, broke, or the sandbox was opened
// by id).
func (s *Sandbox) openSession(ctx context.Context) (*shellConn, error) {
	ex, err := s.rt.cli.ContainerExecCreate(ctx, s.id, container.ExecOptions{
		AttachStdin: true, AttachStdout: true, AttachStderr: true,
		Cmd: session.StartCommand, WorkingDir: s.workdir,
	})
	if err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	hj, err := s.rt.cli.ContainerExecAttach(ctx, ex.ID, container.ExecAttachOptions{})
	if err != nil {
		return nil, fmt.Errorf("open session: attach: %w", err)
	}
	c := &shellConn{execID: ex.ID, hj: hj}
	if err := s.startProtocol(ctx, c); err != nil {
		return nil, err
	}
	return c, nil
}

func (s *Sandbox) currentSession() *shellConn {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	return s.sess
}

// swapSession installs c and returns the session it replaces.
func (s *Sandbox) swapSession(c *shellConn) *shellConn {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	old := s.sess
	s.sess = c
	return old
}

func (s *Sandbox) killStepErr(ctx context.Context, marker string) error {
	_, _, err := s.runShort(ctx, "/bin/sh", "-c", session.KillScript(marker))
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
		if s.lost.Cause == sandbox.SessionEngineLost {
			// While the engine is still away, that is the news.
			if gerr := s.checkRunning(context.WithoutCancel(ctx)); gerr != nil {
				return sandbox.ExecResult{}, fmt.Errorf("exec in %s: %w", s.id, gerr)
			}
		}
		return sandbox.ExecResult{}, fmt.Errorf("exec in %s: %w", s.id, s.lost)
	}
	cur := s.currentSession()
	if cur == nil {
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
// with err. When the container itself is gone the loss is the sandbox's
// (a *sandbox.GoneError is returned: OOM, an outside kill, removal);
// otherwise it is the step's, reported in res.SessionLost, or (when the shell
// was gone before the step ran) a *sandbox.SessionLostError.
func (s *Sandbox) loseSession(ctx context.Context, old *shellConn, res sandbox.ExecResult, err error) (sandbox.ExecResult, error) {
	s.swapSession(nil)
	defer old.close()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restartTimeout)
	defer cancel()
	// A container killed from outside takes its shell down with it: tell
	// that apart before blaming the step.
	if gerr := s.settledGone(rctx, 4); gerr != nil {
		var ge *sandbox.GoneError
		if errors.As(gerr, &ge) && ge.Cause == sandbox.CauseEngineUnavailable {
			s.lost = &sandbox.SessionLostError{ID: s.id, Cause: sandbox.SessionEngineLost, ExitCode: -1}
		}
		return res, gerr
	}
	lost := &sandbox.SessionLostError{ID: s.id, Cause: sandbox.SessionStepEnded, ExitCode: -1}
	if errors.Is(err, session.ErrExitedBefore) { // the step never ran
		lost.Cause, lost.ExitCode = sandbox.SessionKilledOutside, res.ExitCode
		s.lost = lost
		s.rt.log.Info("session lost", "sandbox", s.id, "cause", lost.Cause, "exit", lost.ExitCode)
		return sandbox.ExecResult{}, lost
	}
	switch {
	case errors.Is(err, session.ErrBroken) || res.TimedOut:
		lost.Cause = sandbox.SessionTimeoutKill
		if _, _, kerr := s.runShort(rctx, "/bin/sh", "-c", "kill -9 "+old.shell.PID()); kerr != nil {
			s.rt.log.Warn("kill broken session shell", "sandbox", s.id, "pid", old.shell.PID(), "err", kerr)
		}
	case old.execID == "": // the container's own shell: the supervisor reported its status
		lost.ExitCode = res.ExitCode
	default:
		if code, cerr := s.exitCode(rctx, old.execID); cerr == nil {
			res.ExitCode, lost.ExitCode = code, code
		}
	}
	if !res.TimedOut {
		s.markOOM(rctx, &res) // the OOM killer may have chosen the shell itself
		if res.OOMKilled {
			lost.Cause = sandbox.SessionOOMKilled
		}
	}
	s.rt.log.Info("session lost", "sandbox", s.id, "cause", lost.Cause, "exit", lost.ExitCode)
	s.lost = lost
	res.SessionLost = true
	return res, nil
}

// Reopen discards the session shell, lost or not, and starts a fresh one
// in an exec: it begins in the workdir with the sandbox's own environment.
func (s *Sandbox) Reopen(ctx context.Context) error {
	s.stepMu.Lock()
	defer s.stepMu.Unlock()
	if old := s.swapSession(nil); old != nil {
		if s.lost == nil && old.shell != nil { // still alive: end it so it cannot run on
			kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), killGrace)
			_, _, _ = s.runShort(kctx, "/bin/sh", "-c", "kill -9 "+old.shell.PID())
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
	s.rt.log.Info("session reopened", "sandbox", s.id)
	return nil
}
