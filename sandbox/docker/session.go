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

// restartTimeout bounds replacing a broken session, which runs even when the
// step's context was cancelled so the sandbox stays usable.
const restartTimeout = 30 * time.Second

// shellConn is a session shell attached through one exec, or the
// container's own shell (execID empty) supervised by mainSession.
type shellConn struct {
	shell  *session.Shell
	execID string
	marker string
	hj     types.HijackedResponse
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
func (s *Sandbox) attachSession(ctx context.Context, marker string) (*shellConn, error) {
	hj, err := s.rt.cli.ContainerAttach(ctx, s.id, container.AttachOptions{Stream: true, Stdin: true, Stdout: true, Stderr: true})
	if err != nil {
		return nil, fmt.Errorf("attach session: %w", engineErr(err))
	}
	return &shellConn{hj: hj, marker: marker}, nil
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
	if c.marker != "" {
		opts = append(opts, session.WithExitMarker(c.marker))
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

// execSession runs req in the session shell. A shell that broke (a builtin
// loop that cannot be killed) or exited is replaced, and the step's result
// reports SessionRestarted instead of an error.
func (s *Sandbox) execSession(ctx context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error) {
	s.stepMu.Lock()
	defer s.stepMu.Unlock()
	cur := s.currentSession()
	restarted := false
	if cur == nil {
		var err error
		if cur, err = s.openSession(ctx); err != nil {
			return sandbox.ExecResult{}, fmt.Errorf("exec in %s: %w", s.id, s.gone(ctx, err))
		}
		s.swapSession(cur)
		restarted, s.lost = s.lost, false
	}
	res, err := cur.shell.Run(ctx, req)
	res.SessionRestarted = res.SessionRestarted || restarted
	if err == nil {
		s.markOOM(ctx, &res)
		return res, nil
	}
	if !errors.Is(err, session.ErrBroken) && !errors.Is(err, session.ErrExited) {
		return res, fmt.Errorf("exec in %s: %w", s.id, err)
	}
	old := cur
	s.swapSession(nil)
	defer old.close()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restartTimeout)
	defer cancel()
	if gerr := s.checkRunning(rctx); gerr != nil {
		s.lost = true
		return res, fmt.Errorf("exec in %s: %w", s.id, gerr)
	}
	if errors.Is(err, session.ErrExited) {
		if old.execID == "" { // the container's own shell: the supervisor reported its status
			s.markOOM(rctx, &res)
		} else if code, cerr := s.exitCode(rctx, old.execID); cerr == nil {
			res.ExitCode = code
			s.markOOM(rctx, &res) // the OOM killer may have chosen the shell itself
		}
	} else if _, _, kerr := s.runShort(rctx, "/bin/sh", "-c", "kill -9 "+old.shell.PID()); kerr != nil {
		s.rt.log.Warn("kill broken session shell", "sandbox", s.id, "pid", old.shell.PID(), "err", kerr)
	}
	s.rt.log.Info("restart session", "sandbox", s.id, "cause", err)
	sess, oerr := s.openSession(rctx)
	if oerr != nil {
		s.lost = true
		return res, fmt.Errorf("exec in %s: restart session: %w", s.id, s.gone(rctx, oerr))
	}
	s.swapSession(sess)
	res.SessionRestarted = true
	return res, nil
}
