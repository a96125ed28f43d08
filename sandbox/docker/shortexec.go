package docker

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"
)

// runShort runs one of our own helper commands (kill scripts, probes) in
// an engine exec to completion and returns its combined output and exit
// code.
func (s *Sandbox) runShort(ctx context.Context, cmd ...string) ([]byte, int, error) {
	var out bytes.Buffer
	code, err := s.execRun(ctx, cmd, nil, &out)
	if err != nil {
		return out.Bytes(), 0, fmt.Errorf("run %q: %w", cmd[0], err)
	}
	return out.Bytes(), code, nil
}

// execRun runs argv to completion in an engine exec as the sandbox's
// exec user, with data on its stdin (nil: none), its output to out.
func (s *Sandbox) execRun(ctx context.Context, argv []string, data []byte, out io.Writer) (int, error) {
	ex, err := s.rt.cli.ContainerExecCreate(ctx, s.id, container.ExecOptions{
		AttachStdin: data != nil, AttachStdout: true, AttachStderr: true, Cmd: argv, User: s.execUser, WorkingDir: "/",
	})
	if err != nil {
		return 0, fmt.Errorf("exec: %w", err)
	}
	hj, err := s.rt.cli.ContainerExecAttach(ctx, ex.ID, container.ExecAttachOptions{})
	if err != nil {
		return 0, fmt.Errorf("attach: %w", err)
	}
	defer hj.Close()
	stop := context.AfterFunc(ctx, func() { hj.Close() }) // the hijacked connection ignores ctx
	defer stop()
	if data != nil {
		go func() {
			_, _ = io.Copy(hj.Conn, bytes.NewReader(data))
			_ = hj.CloseWrite()
		}()
	}
	if _, err := stdcopy.StdCopy(out, out, hj.Reader); err != nil && ctx.Err() != nil {
		return 0, fmt.Errorf("read: %w", ctx.Err())
	}
	return s.exitCode(ctx, ex.ID)
}

// exitCode waits for an exec whose streams have closed to be reported as
// finished: the engine records the exit status shortly after the streams end.
func (s *Sandbox) exitCode(ctx context.Context, execID string) (int, error) {
	wait := time.Millisecond
	for deadline := time.Now().Add(5 * time.Second); ; {
		info, err := s.rt.cli.ContainerExecInspect(ctx, execID)
		if err != nil {
			return 0, fmt.Errorf("inspect exec: %w", err)
		}
		if !info.Running {
			return info.ExitCode, nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("inspect exec: still running after its streams closed")
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("inspect exec: %w", ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}
