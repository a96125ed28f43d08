package docker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"
)

// agentConn is an agent exec being talked with. Its output can be handed
// over (handOver) to the session shell the agent becomes at the end of a
// recycle: the exec's streams are then the session's.
type agentConn struct {
	s      *Sandbox
	args   []string
	execID string
	hj     types.HijackedResponse
	out    *io.PipeReader // the agent's stdout, until handed over
	stop   func() bool    // unhooks closing hj at ctx's end

	mu      sync.Mutex
	stdout  *io.PipeWriter // where the demux writes stdout now
	stderr  io.Writer      // and stderr
	errOut  bytes.Buffer   // the agent's stderr
	demuxed chan error
}

// startAgent starts the agent with args as root, attached both ways.
func (s *Sandbox) startAgent(ctx context.Context, args []string) (*agentConn, error) {
	ex, err := s.rt.cli.ContainerExecCreate(ctx, s.id, container.ExecOptions{
		User: "0:0", AttachStdin: true, AttachStdout: true, AttachStderr: true,
		Cmd: append([]string{AgentPath}, args...), WorkingDir: "/",
	})
	if err != nil {
		return nil, fmt.Errorf("agent %s: %w", args[0], s.gone(ctx, err))
	}
	hj, err := s.rt.cli.ContainerExecAttach(ctx, ex.ID, container.ExecAttachOptions{})
	if err != nil {
		return nil, fmt.Errorf("agent %s: attach: %w", args[0], s.gone(ctx, err))
	}
	pr, pw := io.Pipe()
	c := &agentConn{s: s, args: args, execID: ex.ID, hj: hj, out: pr, stdout: pw, demuxed: make(chan error, 1)}
	c.stderr = &c.errOut
	c.stop = context.AfterFunc(ctx, func() { hj.Close() })
	go c.demux()
	return c, nil
}

// demux splits the exec's stream into the current stdout and stderr; at
// its end it closes the current stdout with the stream's error (io.EOF
// for a clean end, which a session reads as its shell gone).
func (c *agentConn) demux() {
	_, err := stdcopy.StdCopy(streamTo{c, false}, streamTo{c, true}, c.hj.Reader)
	if err == nil {
		err = io.EOF
	}
	c.mu.Lock()
	c.stdout.CloseWithError(err)
	c.mu.Unlock()
	c.demuxed <- err
}

// streamTo writes to the agentConn's current stdout or stderr.
type streamTo struct {
	c   *agentConn
	err bool
}

func (w streamTo) Write(p []byte) (int, error) {
	w.c.mu.Lock()
	var dst io.Writer = w.c.stdout
	if w.err {
		dst = w.c.stderr
	}
	w.c.mu.Unlock()
	return dst.Write(p)
}

// wait ends the talk (terr is its error): it hangs up stdin, waits for the
// agent to exit and checks its status.
func (c *agentConn) wait(ctx context.Context, terr error) error {
	_ = c.hj.CloseWrite()
	if terr != nil {
		c.hj.Close() // the agent may still wait for input: end the exec's streams
	}
	c.out.Close()
	<-c.demuxed
	code, err := c.s.exitCode(ctx, c.execID)
	c.mu.Lock()
	stderr := strings.TrimSpace(c.errOut.String())
	c.mu.Unlock()
	switch {
	case err != nil:
		return fmt.Errorf("agent %s: %w", c.args[0], errors.Join(terr, err))
	case code != 0:
		return errors.Join(fmt.Errorf("agent %s: exit %d: %s", c.args[0], code, stderr), terr)
	case terr != nil:
		return fmt.Errorf("agent %s: %w", c.args[0], terr)
	}
	return nil
}

// handOver gives the exec's streams, from now on, to the shell the agent
// is becoming: both stdout and stderr go to the returned reader (as an
// exec'd session's do), and the exec outlives the agent's context.
func (c *agentConn) handOver() io.Reader {
	c.stop()
	pr, pw := io.Pipe()
	c.mu.Lock()
	old := c.stdout
	c.stdout, c.stderr = pw, pw
	c.mu.Unlock()
	old.Close()
	return pr
}

// close releases the exec's connection (not after handOver).
func (c *agentConn) close() {
	c.stop()
	c.hj.Close()
}
