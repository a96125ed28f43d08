package docker

import (
	"context"
	"fmt"
	"io"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/rbx-sandbox/rbx/recycle/agent"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

var _ sandbox.SessionReopener = (*Sandbox)(nil)

// shellConn is a session shell attached through one exec, or the
// container's own shell (execID empty) supervised by mainSession.
type shellConn struct {
	s          *Sandbox
	shell      *session.Shell
	execID     string
	supervised bool // the container's own shell, whose supervisor reports its exit
	hj         types.HijackedResponse
	mc         *muxChan // instead of hj: a shell PID 1 spawned (see spawnSession)
}

// input is where the shell's stdin is written.
func (c *shellConn) input() io.Writer {
	if c.mc != nil {
		return c.mc
	}
	return c.hj.Conn
}

// hangUp ends the shell's stdin and releases its stream.
func (c *shellConn) hangUp() {
	if c.mc != nil {
		_ = c.mc.CloseWrite()
		c.mc.Close()
		return
	}
	c.hj.Close()
}

// Shell is the protocol on the connection.
func (c *shellConn) Shell() *session.Shell { return c.shell }

// ExitStatus is an exec'd shell's status, from the engine; the container's
// own shell's supervisor reports it in the step's result.
func (c *shellConn) ExitStatus(ctx context.Context) (int, bool) {
	if c.mc != nil {
		if _, err := c.mc.Wait(ctx); err != nil {
			return 0, false
		}
		return c.mc.Exited()
	}
	if c.execID == "" {
		return 0, false
	}
	code, err := c.s.exitCode(ctx, c.execID)
	return code, err == nil
}

// Close releases the protocol and hangs up; the shell sees EOF on stdin and
// exits.
func (c *shellConn) Close() {
	if c.shell != nil {
		c.shell.Close()
	}
	c.hangUp()
}

// attachSession runs the protocol on the container's own shell (see
// mainSession), attached before the container starts: no exec is created,
// which is what keeps rbx's creation rate at the engine's own.
func (s *Sandbox) attachSession(ctx context.Context) (*shellConn, error) {
	hj, err := s.rt.cli.ContainerAttach(ctx, s.id, container.AttachOptions{Stream: true, Stdin: true, Stdout: true, Stderr: true})
	if err != nil {
		return nil, fmt.Errorf("attach session: %w", engineErr(err))
	}
	return &shellConn{s: s, hj: hj, supervised: true}, nil
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
	return s.runProtocol(ctx, c, pr)
}

// runProtocol runs the session protocol on c, whose shell's stdout and
// stderr, merged, are read from out.
func (s *Sandbox) runProtocol(ctx context.Context, c *shellConn, out io.Reader) error {
	pr := out
	opts := []session.Option{session.WithOutputCap(s.outputCap)}
	if c.supervised {
		opts = append(opts, session.WithExitReport())
	}
	sh, err := session.New(ctx, c.input(), pr, session.Sh(s.sh).KillStep, opts...)
	if err != nil {
		c.hangUp()
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
func (s *Sandbox) openSession(ctx context.Context) (session.Conn, error) {
	ex, err := s.rt.cli.ContainerExecCreate(ctx, s.id, container.ExecOptions{
		AttachStdin: true, AttachStdout: true, AttachStderr: true,
		Cmd: session.StartCommand, WorkingDir: s.workdir, User: s.execUser,
	})
	if err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	hj, err := s.rt.cli.ContainerExecAttach(ctx, ex.ID, container.ExecAttachOptions{})
	if err != nil {
		return nil, fmt.Errorf("open session: attach: %w", err)
	}
	c := &shellConn{s: s, execID: ex.ID, hj: hj}
	if err := s.startProtocol(ctx, c); err != nil {
		return nil, err
	}
	return c, nil
}

// sh runs one of rbx's own scripts (kills) with the image's /bin/sh.
func (s *Sandbox) sh(ctx context.Context, script string) error {
	_, _, err := s.runShort(ctx, "/bin/sh", "-c", script)
	return err
}

// Reopen discards the session shell, lost or not, and starts a fresh one
// in an exec: it begins in the workdir with the sandbox's own environment.
func (s *Sandbox) Reopen(ctx context.Context) error { return s.keeper.Reopen(ctx) }

// keeperHost is what the session keeper needs of the sandbox.
func (s *Sandbox) keeperHost() session.HostFuncs {
	return session.HostFuncs{OpenFn: s.openSession, CheckRunningFn: s.checkRunning, GoneFn: s.gone, MarkOOMFn: s.markOOM, ShFn: s.sh,
		SettledGoneFn: func(ctx context.Context) error { return s.settledGone(ctx, 4) }}
}

// spawnSession has PID 1 spawn the next session shell as sp (what the
// engine gave the first one) and runs the session protocol on it.
func (s *Sandbox) spawnSession(ctx context.Context, sp *agent.SessionSpec) error {
	mc, err := s.mux.open(agent.OpenRequest{Op: "spawn", Spawn: sp})
	if err != nil {
		return fmt.Errorf("session shell after the recycle: %w", err)
	}
	conn := &shellConn{s: s, mc: mc}
	if err := s.runProtocol(ctx, conn, mc); err != nil {
		return fmt.Errorf("session shell after the recycle: %w", err)
	}
	s.keeper.Install(conn)
	return nil
}
