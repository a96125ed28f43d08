package kubernetes

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"

	"k8s.io/client-go/tools/remotecommand"

	"github.com/rbx-sandbox/rbx/sandbox"
)

var _ sandbox.Terminal = (*Sandbox)(nil)

// StartTerminal starts req.Argv in an exec with a TTY: the kubelet's
// runtime allocates the terminal in the container (stderr comes merged
// into it, as on a terminal). An exec has no working directory or
// environment of its own, so the image's /bin/sh enters Cwd and env sets
// Env before the program replaces them both.
func (s *Sandbox) StartTerminal(ctx context.Context, req sandbox.TerminalRequest) (sandbox.TerminalProcess, error) {
	if err := req.Check(s.id); err != nil {
		return nil, err
	}
	rows, cols := req.TerminalSize()
	args := []string{"/bin/sh", "-c", `cd "$0" || exit 1; exec "$@"`, s.resolve(req.Cwd), "env"}
	for _, k := range slices.Sorted(maps.Keys(req.Env)) {
		args = append(args, k+"="+req.Env[k])
	}
	args = append(args, req.Argv...)
	ex, err := s.rt.executor(s.id, containerName, args, true, true)
	if err != nil {
		return nil, fmt.Errorf("terminal in %s: %w", s.id, err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	size := &fixedSize{size: remotecommand.TerminalSize{Width: cols, Height: rows}}
	go func() {
		err := ex.StreamWithContext(sctx, remotecommand.StreamOptions{Stdin: inR, Stdout: outW, Tty: true, TerminalSizeQueue: size})
		if err == nil {
			err = io.EOF
		}
		_ = outW.CloseWithError(err)
	}()
	return &terminal{in: inW, out: outR, cancel: cancel}, nil
}

// fixedSize is a terminal size queue that sends one size, then waits
// until the stream ends.
type fixedSize struct {
	size remotecommand.TerminalSize
	sent bool
}

func (f *fixedSize) Next() *remotecommand.TerminalSize {
	if f.sent {
		return nil // no more resizes: the queue is done
	}
	f.sent = true
	return &f.size
}

// terminal is a TTY exec's streams.
type terminal struct {
	in     *io.PipeWriter
	out    *io.PipeReader
	cancel context.CancelFunc
}

func (t *terminal) Read(p []byte) (int, error)  { return t.out.Read(p) }
func (t *terminal) Write(p []byte) (int, error) { return t.in.Write(p) }

// Close hangs up the stream. The kubelet's runtime keeps the process
// running: the caller kills it first.
func (t *terminal) Close() error {
	_ = t.in.Close()
	t.cancel()
	return nil
}
