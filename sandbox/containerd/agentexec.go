package containerd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// agentTimeout bounds one agent command (a scan of a large image).
const agentTimeout = 5 * time.Minute

// agentStream is the recycle.Stream of a containerd sandbox: the agent,
// from the read-only agent mount (nothing of the sandbox's own filesystem
// runs), in an exec as root (whatever Spec.User) with the container's
// capabilities, no environment but a fixed PATH, attached both ways.
func (s *Sandbox) agentStream(ctx context.Context, args []string, talk func(in io.Writer, out io.Reader) error) error {
	ctx, cancel := context.WithTimeout(ctx, agentTimeout)
	defer cancel()
	ps := s.process
	ps.Args = append([]string{AgentPath}, args...)
	ps.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}
	ps.Cwd = "/"
	ps.Terminal = false
	ps.User = specs.User{UID: 0, GID: 0}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errOut session.LockedBuffer
	pr, err := s.execProc(ctx, &ps, inR, outW, &errOut)
	if err != nil {
		return fmt.Errorf("agent %s: %w", args[0], s.gone(ctx, err))
	}
	exited := make(chan struct{})
	var code int
	var werr error
	go func() {
		defer close(exited)
		code, werr = pr.finish(context.WithoutCancel(ctx), <-pr.status)
		outW.Close() // the talk reading past the agent's output sees its end
	}()
	stop := context.AfterFunc(ctx, func() { pr.delete(context.WithoutCancel(ctx)) })
	defer stop()
	terr := talk(inW, outR)
	inW.Close() // a command still reading sees the end of its input
	if terr != nil {
		pr.delete(ctx) // it may still wait for input
	}
	go func() { _, _ = io.Copy(io.Discard, outR) }() // what the talk did not read
	<-exited
	stderr := strings.TrimSpace(string(errOut.Bytes()))
	switch {
	case werr != nil:
		return fmt.Errorf("agent %s: %w", args[0], errors.Join(terr, werr))
	case code != 0:
		return errors.Join(fmt.Errorf("agent %s: exit %d: %s", args[0], code, stderr), terr)
	case terr != nil:
		return fmt.Errorf("agent %s: %w", args[0], terr)
	}
	return nil
}

// Digest runs the agent's digest (tests compare a recycled sandbox with a
// fresh one): one line per entry, process and IPC object, then a total.
func (s *Sandbox) Digest(ctx context.Context) (string, error) {
	var out []byte
	err := s.agentStream(ctx, []string{"digest"}, func(_ io.Writer, o io.Reader) error {
		var err error
		out, err = io.ReadAll(o)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("digest sandbox %s: %w", s.id, err)
	}
	return string(out), nil
}
