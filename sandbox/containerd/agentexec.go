package containerd

import (
	"context"
	"fmt"
	"io"

	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/rbx-sandbox/rbx/recycle"
)

// agentStream is the recycle.Stream of a containerd sandbox: the agent,
// from the read-only agent mount (nothing of the sandbox's own filesystem
// runs), in an exec as root (whatever Spec.User) with the container's
// capabilities, no environment but a fixed PATH, attached both ways.
func (s *Sandbox) agentStream(ctx context.Context, args []string, talk func(in io.Writer, out io.Reader) error) error {
	ps := s.process
	ps.Args = append([]string{AgentPath}, args...)
	ps.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}
	ps.Cwd = "/"
	ps.Terminal = false
	ps.User = specs.User{UID: 0, GID: 0}
	return recycle.RunAttached(ctx, args[0], func(stdin io.Reader, stdout, stderr io.Writer) (func() (int, error), func(), error) {
		pr, err := s.execProc(ctx, &ps, stdin, stdout, stderr)
		if err != nil {
			return nil, nil, s.gone(ctx, err)
		}
		wait := func() (int, error) { return pr.finish(context.WithoutCancel(ctx), <-pr.status) }
		kill := func() { pr.delete(context.WithoutCancel(ctx)) }
		return wait, kill, nil
	}, talk)
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
