package containerd

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/cio"
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// ioDrain bounds how long the output of an exited process may take to be
// copied: a background job it started can hold its stdout open forever.
const ioDrain = time.Second

// proc is one exec in the sandbox's task.
type proc struct {
	p      client.Process
	status <-chan client.ExitStatus
}

// run starts args in the container (cwd, the container's environment plus
// env) with stdin and stdout+stderr as given; either may be nil.
func (s *Sandbox) run(ctx context.Context, args, env []string, cwd string, stdin io.Reader, out io.Writer) (*proc, error) {
	ps := s.process
	ps.Args = args
	ps.Env = append(slices.Clone(s.process.Env), env...)
	ps.Terminal = false
	if cwd != "" {
		ps.Cwd = cwd
	}
	if out == nil {
		out = io.Discard
	}
	return s.execProc(ctx, &ps, stdin, out, out)
}

// execProc starts the process ps in the container's task with its three
// streams (stdin may be nil).
func (s *Sandbox) execProc(ctx context.Context, ps *specs.Process, stdin io.Reader, stdout, stderr io.Writer) (*proc, error) {
	ps.Capabilities = userCaps(ps.User.UID, ps.Capabilities)
	args := ps.Args
	ctx = s.rt.ctx(ctx)
	var in *stdinCloser
	if stdin != nil {
		in = &stdinCloser{r: stdin, ready: make(chan struct{})}
		stdin = in
	}
	p, err := s.task.Exec(ctx, "x"+randomHex(8), ps, cio.NewCreator(cio.WithStreams(stdin, stdout, stderr)))
	if err != nil {
		in.release(nil)
		return nil, fmt.Errorf("exec %q: %w", args[0], err)
	}
	// Wait outlives ctx: the exit must be seen even after a cancellation.
	status, err := p.Wait(context.WithoutCancel(ctx))
	if err == nil {
		err = p.Start(ctx)
	}
	if err != nil {
		in.release(nil)
		pr := &proc{p: p}
		pr.delete(ctx)
		return nil, fmt.Errorf("exec %q: %w", args[0], err)
	}
	in.release(p)
	return &proc{p: p, status: status}, nil
}

// finish waits (briefly) for the output to be copied, then deletes the
// exec; it returns the exit status.
func (pr *proc) finish(ctx context.Context, st client.ExitStatus) (int, error) {
	done := make(chan struct{})
	go func() { pr.p.IO().Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(ioDrain):
	}
	pr.delete(ctx)
	code, _, err := st.Result()
	return int(code), err
}

// delete kills what is left of the exec and deletes it, ignoring errors:
// the task may be gone already.
func (pr *proc) delete(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	_ = pr.p.Kill(ctx, syscall.SIGKILL)
	if pr.status != nil {
		select {
		case <-pr.status:
		case <-time.After(killGrace):
		}
	}
	_, _ = pr.p.Delete(ctx)
}

// killGrace is how long a killed process may take to exit.
const killGrace = 2 * time.Second

// runShort runs one of our own helper commands (kill scripts, probes) to
// completion and returns its combined output and exit code.
func (s *Sandbox) runShort(ctx context.Context, args ...string) ([]byte, int, error) {
	var out session.LockedBuffer
	pr, err := s.run(ctx, args, nil, "/", nil, &out)
	if err != nil {
		return nil, 0, err
	}
	select {
	case st := <-pr.status:
		code, err := pr.finish(ctx, st)
		return out.Bytes(), code, err
	case <-ctx.Done():
		pr.delete(ctx)
		return out.Bytes(), 0, fmt.Errorf("exec %q: %w", args[0], ctx.Err())
	}
}

// stdinCloser tells containerd that an exec's stdin has ended when its
// reader does: the shim keeps the stdin FIFO open for writing itself, so
// the process would never see EOF otherwise.
type stdinCloser struct {
	r     io.Reader
	p     client.Process
	ready chan struct{} // closed by release
	once  sync.Once
}

// release lets the stdin copy close p's stdin once it ends: only after
// the process started, or the close would be lost. p nil means no process.
func (c *stdinCloser) release(p client.Process) {
	if c != nil {
		c.p = p
		close(c.ready)
	}
}

func (c *stdinCloser) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	if err != nil {
		c.once.Do(func() {
			<-c.ready
			if c.p == nil {
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), killGrace)
			defer cancel()
			_ = c.p.CloseIO(ctx, client.WithStdinCloser)
		})
	}
	return n, err
}

// userCaps is what capabilities an exec of uid starts with: a process of
// a user other than root gets none but the bounding set, as Docker gives
// it and as the kernel leaves a non-root process after execve. The OCI
// spec's sets are applied as written to an exec's first process, and
// gVisor keeps them: a uid 1000 shell held CAP_CHOWN and CAP_FOWNER, and
// busybox sh, which runs chmod, chown and touch in its own process,
// changed root's files (measured under runsc; runc happened to drop them).
func userCaps(uid uint32, c *specs.LinuxCapabilities) *specs.LinuxCapabilities {
	if uid == 0 || c == nil {
		return c
	}
	return &specs.LinuxCapabilities{Bounding: c.Bounding}
}
