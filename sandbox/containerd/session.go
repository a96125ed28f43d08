package containerd

import (
	"context"
	"fmt"
	"io"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

var _ sandbox.SessionReopener = (*Sandbox)(nil)

// shellConn is a session shell running in one exec under a supervisor that
// reports its exit status (see supervisor).
type shellConn struct {
	shell *session.Shell
	proc  *proc
	stdin *io.PipeWriter
	out   *io.PipeReader
}

// Shell is the protocol on the connection.
func (c *shellConn) Shell() *session.Shell { return c.shell }

// ExitStatus: the supervisor reports the shell's status in the step's result.
func (c *shellConn) ExitStatus(context.Context) (int, bool) { return 0, false }

// Close hangs up: the shell sees EOF on stdin and exits; output nobody will
// read is discarded so that the copy does not block.
func (c *shellConn) Close() {
	if c.shell != nil {
		c.shell.Close()
	}
	c.stdin.Close()
	c.out.Close()
}

// supervisor runs the session shell in an exec and reports its exit
// status (see session.Supervisor).
var supervisor = []string{"/bin/sh", "-c", session.Supervisor("")}

// openSession starts a supervised session shell in an exec and runs the
// protocol's handshake on it.
func (s *Sandbox) openSession(ctx context.Context) (session.Conn, error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &shellConn{stdin: inW, out: outR}
	pr, err := s.run(ctx, supervisor, nil, s.workdir, inR, outW)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("open session: %w", err)
	}
	c.proc = pr
	go func() {
		st := <-pr.status
		_, _ = pr.finish(context.Background(), st)
		outW.Close()
	}()
	sh, err := session.New(ctx, inW, outR, s.killStepErr, session.WithOutputCap(s.outputCap), session.WithExitReport())
	if err != nil {
		c.Close()
		if ctx.Err() != nil { // the handshake saw a cancelled ctx as a timeout
			return nil, fmt.Errorf("open session: %w: %w", ctx.Err(), err)
		}
		return nil, fmt.Errorf("open session: %w", err)
	}
	c.shell = sh
	return c, nil
}

func (s *Sandbox) killStepErr(ctx context.Context, marker string) error {
	_, _, err := s.runShort(ctx, "/bin/sh", "-c", session.KillScript(marker))
	return err
}

// Reopen discards the session shell, lost or not, and starts a fresh one:
// it begins in the workdir with the sandbox's own environment.
func (s *Sandbox) Reopen(ctx context.Context) error { return s.keeper.Reopen(ctx) }

// keeperHost is what the session keeper needs of a containerd sandbox.
type keeperHost struct{ s *Sandbox }

func (h keeperHost) Open(ctx context.Context) (session.Conn, error) { return h.s.openSession(ctx) }
func (h keeperHost) CheckRunning(ctx context.Context) error         { return h.s.checkRunning(ctx) }
func (h keeperHost) SettledGone(ctx context.Context) error          { return h.s.settledGone(ctx, 4) }
func (h keeperHost) Gone(ctx context.Context, err error) error      { return h.s.gone(ctx, err) }
func (h keeperHost) MarkOOM(ctx context.Context, res *sandbox.ExecResult) {
	h.s.markOOM(ctx, res)
}
func (h keeperHost) Kill(ctx context.Context, pid string) error {
	_, _, err := h.s.runShort(ctx, "/bin/sh", "-c", "kill -9 "+pid)
	return err
}
