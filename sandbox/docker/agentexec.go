package docker

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/rbx-sandbox/rbx/recycle"
	"github.com/rbx-sandbox/rbx/recycle/agent"
)

// runAgent runs the agent with args in the sandbox as root (whatever
// Spec.User) and returns its stdout. The binary is on the read-only agent
// volume: nothing of the sandbox's own filesystem runs.
func (s *Sandbox) runAgent(ctx context.Context, args ...string) ([]byte, error) {
	var out []byte
	err := s.runAgentStream(ctx, args, func(_ io.Writer, o io.Reader) error {
		var err error
		out, err = io.ReadAll(o)
		return err
	})
	return out, err
}

// Digest runs the agent's digest (tests compare a recycled sandbox with a
// fresh one): one line per entry, process and IPC object, then a total.
func (s *Sandbox) Digest(ctx context.Context) (string, error) {
	out, err := s.runAgent(ctx, "digest")
	if err != nil {
		return "", fmt.Errorf("digest sandbox %s: %w", s.id, err)
	}
	return string(out), nil
}

// runAgentStream runs the agent with args as root, attached both ways, and
// talks with it while it runs: talk writes to its stdin and reads its stdout (a
// recycle's two rounds). The agent's exit status is checked after talk.
func (s *Sandbox) runAgentStream(ctx context.Context, args []string, talk func(in io.Writer, out io.Reader) error) error {
	ctx, cancel := context.WithTimeout(ctx, recycle.AgentTimeout)
	defer cancel()
	if s.mux.alive() && inPID1[args[0]] {
		return s.muxTalk(ctx, args, talk)
	}
	c, err := s.startAgent(ctx, args)
	if err != nil {
		return err
	}
	defer c.close()
	return c.wait(ctx, talk(c.hj.Conn, c.out))
}

// inPID1 are the agent's commands PID 1 runs itself (digest is not: its
// tests compare what an exec sees).
var inPID1 = map[string]bool{"scan": true, "recycle": true, "whois": true}

// muxTalk is runAgentStream through PID 1's mux: the command runs in PID 1
// itself, the one process its kill(-1) spares, and costs no exec.
func (s *Sandbox) muxTalk(ctx context.Context, args []string, talk func(in io.Writer, out io.Reader) error) error {
	c, err := s.mux.open(agent.OpenRequest{Op: args[0], Args: args[1:]})
	if err != nil {
		return fmt.Errorf("agent %s: %w", args[0], err)
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.fail(ctx.Err()) })
	defer stop()
	terr := talk(c, c)
	_ = c.CloseWrite() // a command still reading sees the end of its input
	st, err := c.Wait(ctx)
	switch {
	case err != nil:
		return fmt.Errorf("agent %s: %w", args[0], errors.Join(terr, err))
	case st.Code != 0 || st.Err != "":
		return errors.Join(fmt.Errorf("agent %s: exit %d: %s", args[0], st.Code, st.Err), terr)
	case terr != nil:
		return fmt.Errorf("agent %s: %w", args[0], terr)
	}
	return nil
}
