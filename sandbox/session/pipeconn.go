package session

import (
	"context"
	"fmt"
	"io"
)

// StartExec starts a session supervisor (see Supervisor) in an exec of the
// backend's, with stdin for its stdin and out for its output. wait blocks
// until the exec ended and returns the error of its stream (nil when it
// ended normally); stop, when not nil, ends the stream, for an exec that
// hanging up its stdin does not end. Both are nil when err is not.
type StartExec func(ctx context.Context, stdin io.Reader, out io.Writer) (wait func() error, stop func(), err error)

// pipeConn is a Conn for a session shell in one exec under a supervisor
// that reports its exit status: the transport of the backends whose exec
// API takes a reader and a writer (containerd, kubernetes), piped to the
// protocol.
type pipeConn struct {
	shell *Shell
	stdin *io.PipeWriter
	out   *io.PipeReader
	stop  func()
}

// OpenPipe starts a supervised session shell with start and runs the
// protocol's handshake on it, with WithExitReport added to opts. kill
// kills a timed-out step's processes. It returns the Conn a Host's Open
// returns (nil, never a typed nil, on error).
func OpenPipe(ctx context.Context, start StartExec, kill Killer, opts ...Option) (Conn, error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &pipeConn{stdin: inW, out: outR}
	wait, stop, err := start(ctx, inR, outW)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("open session: %w", err)
	}
	c.stop = stop
	go func() {
		// The end of the exec is the end of the output the protocol
		// reads (nil error: EOF), even when a background job of the
		// shell still holds the exec's stdout.
		outW.CloseWithError(wait())
	}()
	sh, err := New(ctx, inW, outR, kill, append(opts, WithExitReport())...)
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

// Shell is the protocol on the connection.
func (c *pipeConn) Shell() *Shell { return c.shell }

// ExitStatus reports nothing: the supervisor reports the shell's status in
// the step's result.
func (c *pipeConn) ExitStatus(context.Context) (int, bool) { return 0, false }

// Close hangs up: the shell sees EOF on stdin and exits; output nobody will
// read is discarded so that the copy does not block.
func (c *pipeConn) Close() {
	if c.shell != nil {
		c.shell.Close()
	}
	c.stdin.Close()
	c.out.Close()
	if c.stop != nil {
		c.stop()
	}
}
