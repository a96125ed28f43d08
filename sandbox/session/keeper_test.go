package session_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// fakeHost opens supervised host shells (the containerd and Kubernetes
// backends' layout: the supervisor reports the shell's exit) and plays the
// sandbox's state: running, gone, or its engine away.
type fakeHost struct {
	t      *testing.T
	mu     sync.Mutex
	state  error // what CheckRunning returns
	opens  int
	killed []string
}

func (h *fakeHost) Open(ctx context.Context) (session.Conn, error) {
	h.mu.Lock()
	h.opens++
	h.mu.Unlock()
	cmd := exec.Command("sh", "-c", session.ReadExitMarker+"; sh; "+session.ExitScript+"; sleep 30")
	cmd.Dir = h.t.TempDir()
	stdin, err := cmd.StdinPipe()
	require.NoError(h.t, err)
	pr, pw, err := os.Pipe()
	require.NoError(h.t, err)
	cmd.Stdout, cmd.Stderr = pw, pw
	require.NoError(h.t, cmd.Start())
	h.t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); _ = pr.Close() })
	require.NoError(h.t, pw.Close())
	kill := func(ctx context.Context, marker string) error {
		return exec.CommandContext(ctx, "sh", "-c", session.KillScript(marker)).Run()
	}
	sh, err := session.New(ctx, stdin, pr, kill, session.WithExitReport(), session.WithGrace(300*time.Millisecond))
	if err != nil {
		return nil, err
	}
	return &fakeConn{sh: sh, stdin: stdin}, nil
}

func (h *fakeHost) CheckRunning(context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.state
}
func (h *fakeHost) SettledGone(ctx context.Context) error        { return h.CheckRunning(ctx) }
func (h *fakeHost) Gone(_ context.Context, err error) error      { return err }
func (h *fakeHost) MarkOOM(context.Context, *sandbox.ExecResult) {}
func (h *fakeHost) Kill(ctx context.Context, pid string) error {
	h.mu.Lock()
	h.killed = append(h.killed, pid)
	h.mu.Unlock()
	return exec.CommandContext(ctx, "kill", "-9", pid).Run()
}

func (h *fakeHost) set(state error) {
	h.mu.Lock()
	h.state = state
	h.mu.Unlock()
}

type fakeConn struct {
	sh    *session.Shell
	stdin io.Closer
}

func (c *fakeConn) Shell() *session.Shell                  { return c.sh }
func (c *fakeConn) ExitStatus(context.Context) (int, bool) { return 0, false }
func (c *fakeConn) Close()                                 { c.sh.Close(); _ = c.stdin.Close() }
func run(k *session.Keeper, cmd string, timeout time.Duration) (sandbox.ExecResult, error) {
	return k.Run(context.Background(), sandbox.ExecRequest{Command: cmd, Timeout: timeout})
}

// TestKeeper: how a session shell's end is reported, the same for every
// container backend, and that only Reopen replaces a lost shell.
func TestKeeper(t *testing.T) {
	gone := &sandbox.GoneError{ID: "sb", Cause: sandbox.CauseRemoved}
	tests := []struct {
		name string
		// act ends the shell; returns the step's result and error.
		act       func(t *testing.T, h *fakeHost, k *session.Keeper) (sandbox.ExecResult, error)
		wantLost  bool   // the step's result reports SessionLost
		wantErr   error  // the step's error (errors.Is), or
		wantLostE bool   // a *sandbox.SessionLostError
		wantCause string // the next step's *sandbox.SessionLostError cause
		wantCode  int
	}{
		{name: "the step exits the shell", wantLost: true, wantCause: sandbox.SessionStepEnded, wantCode: 3,
			act: func(t *testing.T, h *fakeHost, k *session.Keeper) (sandbox.ExecResult, error) {
				return run(k, "exit 3", 5*time.Second)
			}},
		{name: "a timed-out builtin loop is killed", wantLost: true, wantCause: sandbox.SessionTimeoutKill, wantCode: -1,
			act: func(t *testing.T, h *fakeHost, k *session.Keeper) (sandbox.ExecResult, error) {
				return run(k, "while :; do :; done", 200*time.Millisecond)
			}},
		{name: "killed from outside between steps", wantLostE: true, wantCause: sandbox.SessionKilledOutside, wantCode: 137,
			act: func(t *testing.T, h *fakeHost, k *session.Keeper) (sandbox.ExecResult, error) {
				res, err := run(k, "echo $$", 5*time.Second)
				require.NoError(t, err)
				require.NoError(t, exec.Command("kill", "-9", string(res.Output[:len(res.Output)-1])).Run())
				time.Sleep(200 * time.Millisecond)
				return run(k, "echo never", 5*time.Second)
			}},
		{name: "the sandbox went with its shell", wantErr: gone,
			act: func(t *testing.T, h *fakeHost, k *session.Keeper) (sandbox.ExecResult, error) {
				h.set(gone)
				return run(k, "exit 1", 5*time.Second)
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := &fakeHost{t: t}
			k := session.NewKeeper("sb", h, slog.New(slog.NewTextHandler(io.Discard, nil)))
			t.Cleanup(k.Close)
			_, err := run(k, "export KEEP=1", 5*time.Second)
			require.NoError(t, err)
			assert.Equal(t, 1, h.opens, "the first step opens the shell")

			res, err := tc.act(t, h, k)
			assert.Equal(t, tc.wantLost, res.SessionLost)
			switch {
			case tc.wantErr != nil:
				require.ErrorIs(t, err, tc.wantErr)
			case tc.wantLostE:
				var lost *sandbox.SessionLostError
				require.ErrorAs(t, err, &lost, "the step never ran")
			default:
				require.NoError(t, err)
			}
			if tc.wantCause != "" {
				_, err = run(k, "echo again", 5*time.Second)
				var lost *sandbox.SessionLostError
				require.ErrorAs(t, err, &lost, "a lost shell is not replaced quietly")
				assert.Equal(t, tc.wantCause, lost.Cause)
				assert.Equal(t, tc.wantCode, lost.ExitCode)
			}
			if tc.wantCause == sandbox.SessionTimeoutKill {
				assert.Len(t, h.killed, 1, "the broken shell is killed")
			}
			assert.False(t, k.Active())

			h.set(nil)
			require.NoError(t, k.Reopen(context.Background()))
			res, err = run(k, "echo ${KEEP:-fresh}", 5*time.Second)
			require.NoError(t, err)
			assert.Equal(t, "fresh\n", string(res.Output), "a reopened shell starts afresh")
			assert.Equal(t, 2, h.opens)
		})
	}
}

// TestKeeperEngineAway: while the engine is away, the next step says so;
// once it is back the shell is reported lost to it.
func TestKeeperEngineAway(t *testing.T) {
	h := &fakeHost{t: t}
	k := session.NewKeeper("sb", h, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(k.Close)
	away := &sandbox.GoneError{ID: "sb", Cause: sandbox.CauseEngineUnavailable}
	h.set(away)
	_, err := run(k, "echo first", 5*time.Second)
	require.ErrorIs(t, err, error(away), "no shell is opened on a sandbox that does not run")
	h.set(nil)
	_, err = run(k, "echo first", 5*time.Second)
	require.NoError(t, err)

	h.set(away)
	_, err = run(k, "exit 1", 5*time.Second)
	require.ErrorIs(t, err, error(away))
	_, err = run(k, "echo again", 5*time.Second)
	require.ErrorIs(t, err, error(away), "still away")
	h.set(nil)
	_, err = run(k, "echo again", 5*time.Second)
	var lost *sandbox.SessionLostError
	require.ErrorAs(t, err, &lost)
	assert.Equal(t, sandbox.SessionEngineLost, lost.Cause)
}
