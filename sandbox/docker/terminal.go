package docker

import (
	"context"
	"fmt"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"

	"github.com/rbx-sandbox/rbx/sandbox"
)

var _ sandbox.Terminal = (*Sandbox)(nil)

// StartTerminal starts req.Argv in an exec with a TTY: the engine
// allocates the terminal in the container and the stream is raw (no
// stdout/stderr multiplexing).
func (s *Sandbox) StartTerminal(ctx context.Context, req sandbox.TerminalRequest) (sandbox.TerminalProcess, error) {
	if err := req.Check(s.id); err != nil {
		return nil, err
	}
	rows, cols := req.TerminalSize()
	size := [2]uint{uint(rows), uint(cols)}
	cwd := s.workdir
	if req.Cwd != "" {
		cwd = s.resolve(req.Cwd)
	}
	ex, err := s.rt.cli.ContainerExecCreate(ctx, s.id, container.ExecOptions{
		AttachStdin: true, AttachStdout: true, AttachStderr: true, Tty: true, ConsoleSize: &size,
		Cmd: req.Argv, WorkingDir: cwd, Env: envList(req.Env), User: s.execUser,
	})
	if err != nil {
		return nil, fmt.Errorf("terminal in %s: %w", s.id, s.gone(ctx, err))
	}
	hj, err := s.rt.cli.ContainerExecAttach(ctx, ex.ID, container.ExecAttachOptions{Tty: true, ConsoleSize: &size})
	if err != nil {
		return nil, fmt.Errorf("terminal in %s: attach: %w", s.id, s.gone(ctx, err))
	}
	return &terminal{hj: hj}, nil
}

// terminal is an attached TTY exec.
type terminal struct{ hj types.HijackedResponse }

func (t *terminal) Read(p []byte) (int, error)  { return t.hj.Reader.Read(p) }
func (t *terminal) Write(p []byte) (int, error) { return t.hj.Conn.Write(p) }

// Close hangs up the attachment. The engine keeps the process running: the
// caller kills it first.
func (t *terminal) Close() error {
	t.hj.Close()
	return nil
}
