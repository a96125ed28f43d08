package containerd

import (
	"context"
	"fmt"
	"io"
	"path"
	"slices"
	"sort"

	"github.com/containerd/containerd/v2/pkg/cio"
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/rbx-sandbox/rbx/sandbox"
)

var _ sandbox.Terminal = (*Sandbox)(nil)

// StartTerminal starts req.Argv in an exec with a terminal (the shim
// allocates it); its output arrives on one stream.
func (s *Sandbox) StartTerminal(ctx context.Context, req sandbox.TerminalRequest) (sandbox.TerminalProcess, error) {
	if err := req.Check(s.id); err != nil {
		return nil, err
	}
	ps := s.process
	ps.Args = req.Argv
	ps.Env = append(slices.Clone(s.process.Env), envPairs(req.Env)...)
	ps.Terminal = true
	rows, cols := req.TerminalSize()
	ps.ConsoleSize = &specs.Box{Height: uint(rows), Width: uint(cols)}
	ps.Cwd = s.workdir
	if req.Cwd != "" {
		ps.Cwd = req.Cwd
		if !path.IsAbs(ps.Cwd) {
			ps.Cwd = path.Join(s.workdir, ps.Cwd)
		}
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx = s.rt.ctx(ctx)
	p, err := s.task.Exec(ctx, "t"+randomHex(8), &ps, cio.NewCreator(cio.WithStreams(inR, outW, nil), cio.WithTerminal))
	if err != nil {
		return nil, fmt.Errorf("terminal in %s: %w", s.id, s.gone(ctx, err))
	}
	pr := &proc{p: p}
	status, err := p.Wait(context.WithoutCancel(ctx))
	if err == nil {
		err = p.Start(ctx)
	}
	if err != nil {
		pr.delete(ctx)
		return nil, fmt.Errorf("terminal in %s: %w", s.id, s.gone(ctx, err))
	}
	pr.status = status
	t := &terminal{in: inW, out: outR, pr: pr}
	go func() {
		st := <-status
		_, _ = pr.finish(context.Background(), st)
		outW.Close()
	}()
	return t, nil
}

// terminal is an exec with a terminal.
type terminal struct {
	in  *io.PipeWriter
	out *io.PipeReader
	pr  *proc
}

func (t *terminal) Read(p []byte) (int, error)  { return t.out.Read(p) }
func (t *terminal) Write(p []byte) (int, error) { return t.in.Write(p) }

// Close kills the exec and deletes it.
func (t *terminal) Close() error {
	t.in.Close()
	t.pr.delete(context.Background())
	t.out.Close()
	return nil
}

// envPairs renders env as sorted KEY=value pairs.
func envPairs(env map[string]string) []string {
	l := make([]string, 0, len(env))
	for k, v := range env {
		l = append(l, k+"="+v)
	}
	sort.Strings(l)
	return l
}
