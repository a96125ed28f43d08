package recycle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// AgentTimeout bounds one agent command (a scan of a large image).
const AgentTimeout = 5 * time.Minute

// StartFunc starts the agent with its three streams attached and returns
// how to wait for its exit status (called once) and how to kill it.
type StartFunc func(stdin io.Reader, stdout, stderr io.Writer) (wait func() (int, error), kill func(), err error)

// RunAttached is a Stream over a process a backend starts (an exec, on
// containerd and Kubernetes): talk writes its stdin and reads its stdout
// while it runs; its stdin ends when talk returns (a failed talk kills
// it: it may still wait for input); the exit status, and the first KiBs
// of stderr on a failure, are checked after. It is bounded by
// AgentTimeout, and killed when ctx ends.
func RunAttached(ctx context.Context, name string, start StartFunc, talk func(in io.Writer, out io.Reader) error) error {
	ctx, cancel := context.WithTimeout(ctx, AgentTimeout)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errOut session.LockedBuffer
	wait, kill, err := start(inR, outW, &errOut)
	if err != nil {
		return fmt.Errorf("agent %s: %w", name, err)
	}
	type exit struct {
		code int
		err  error
	}
	exited := make(chan exit, 1)
	go func() {
		code, err := wait()
		outW.Close() // the talk reading past the agent's output sees its end
		exited <- exit{code, err}
	}()
	stop := context.AfterFunc(ctx, kill)
	defer stop()
	terr := talk(inW, outR)
	inW.Close() // a command still reading sees the end of its input
	if terr != nil {
		kill()
	}
	go func() { _, _ = io.Copy(io.Discard, outR) }() // what the talk did not read
	x := <-exited
	switch {
	case x.err != nil:
		return fmt.Errorf("agent %s: %w", name, errors.Join(terr, x.err))
	case x.code != 0:
		stderr := strings.TrimSpace(string(errOut.Bytes()))
		if len(stderr) > 4096 {
			stderr = stderr[:4096]
		}
		return errors.Join(fmt.Errorf("agent %s: exit %d: %s", name, x.code, stderr), terr)
	case terr != nil:
		return fmt.Errorf("agent %s: %w", name, terr)
	}
	return nil
}
