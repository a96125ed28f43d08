package docker

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"
)

// runShort runs one of our own helper commands (kill scripts, probes) to
// completion and returns its combined output and exit code.
func (s *Sandbox) runShort(ctx context.Context, cmd ...string) ([]byte, int, error) {
	ex, err := s.rt.cli.ContainerExecCreate(ctx, s.id, container.ExecOptions{
		AttachStdout: true, AttachStderr: true, Cmd: cmd, User: s.execUser,
	})
	if err != nil {
		return nil, 0, fmt.Errorf("exec %q: %w", cmd[0], err)
	}
	hj, err := s.rt.cli.ContainerExecAttach(ctx, ex.ID, container.ExecAttachOptions{})
	if err != nil {
		return nil, 0, fmt.Errorf("attach %q: %w", cmd[0], err)
	}
	defer hj.Close()
	// The hijacked connection ignores ctx once established.
	stop := context.AfterFunc(ctx, func() { hj.Close() })
	defer stop()
	var out bytes.Buffer
	if _, err := stdcopy.StdCopy(&out, &out, hj.Reader); err != nil && ctx.Err() != nil {
		return out.Bytes(), 0, fmt.Errorf("read %q: %w", cmd[0], ctx.Err())
	}
	code, err := s.exitCode(ctx, ex.ID)
	return out.Bytes(), code, err
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
