package session_test

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// hostSupervisor starts session.Supervisor as a host process: the exec a
// container backend would start.
func hostSupervisor(t *testing.T) session.StartExec {
	t.Helper()
	return func(_ context.Context, stdin io.Reader, out io.Writer) (func() error, func(), error) {
		cmd := exec.Command("/bin/sh", "-c", session.Supervisor(""))
		cmd.Dir = t.TempDir()
		cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, out, out
		if err := cmd.Start(); err != nil {
			return nil, nil, err
		}
		t.Cleanup(func() { _ = cmd.Process.Kill() })
		return func() error { _ = cmd.Wait(); return nil }, nil, nil
	}
}

func hostKill(ctx context.Context, marker string) error {
	return exec.CommandContext(ctx, "sh", "-c", session.KillScript(marker)).Run()
}

func TestOpenPipe(t *testing.T) {
	tests := []struct {
		name     string
		command  string
		wantOut  string
		wantCode int
		wantErr  error
	}{
		{name: "step", command: "echo hi", wantOut: "hi\n"},
		{name: "status", command: "false", wantCode: 1},
		{name: "shell exits", command: "exit 3", wantCode: 3, wantErr: session.ErrExited},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			c, err := session.OpenPipe(ctx, hostSupervisor(t), hostKill, session.WithOutputCap(1<<10))
			require.NoError(t, err)
			t.Cleanup(c.Close)
			assert.NotEmpty(t, c.Shell().PID())
			_, ok := c.ExitStatus(ctx)
			assert.False(t, ok, "the supervisor reports the status")
			res, err := c.Shell().Run(ctx, sandbox.ExecRequest{Command: tt.command, Timeout: 10 * time.Second})
			if tt.wantErr != nil {
				assert.ErrorIs(t, err, tt.wantErr)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.wantOut, string(res.Output))
			assert.Equal(t, tt.wantCode, res.ExitCode)
		})
	}
}

func TestOpenPipeStartFails(t *testing.T) {
	boom := errors.New("no exec")
	start := func(context.Context, io.Reader, io.Writer) (func() error, func(), error) { return nil, nil, boom }
	c, err := session.OpenPipe(context.Background(), start, hostKill)
	assert.Nil(t, c)
	assert.ErrorIs(t, err, boom)
	assert.EqualError(t, err, "open session: no exec")
}

func TestPipeConnCloseStops(t *testing.T) {
	stopped := make(chan struct{})
	start := func(ctx context.Context, stdin io.Reader, out io.Writer) (func() error, func(), error) {
		wait, _, err := hostSupervisor(t)(ctx, stdin, out)
		return wait, func() { close(stopped) }, err
	}
	c, err := session.OpenPipe(context.Background(), start, hostKill)
	require.NoError(t, err)
	c.Close()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not stop the exec's stream")
	}
}
