package docker_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

func TestIntegrationCreateExecRemove(t *testing.T) {
	rt := newRuntime(t)
	ctx := context.Background()
	for _, mode := range []sandbox.Mode{sandbox.ModeSession, sandbox.ModeExec} {
		t.Run(string(mode), func(t *testing.T) {
			sb := newSandbox(t, rt, sandbox.Spec{Mode: mode, Env: map[string]string{"GREETING": "hello"}})
			res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "echo $GREETING; pwd; echo err >&2; (exit 3)"})
			require.NoError(t, err)
			assert.Equal(t, "hello\n/workspace\nerr\n", string(res.Output))
			assert.Equal(t, 3, res.ExitCode)
			assert.False(t, res.TimedOut)
			assert.False(t, res.SessionLost)

			require.NoError(t, sb.Remove(ctx))
			require.NoError(t, sb.Remove(ctx), "Remove is idempotent")
			require.ErrorIs(t, rt.Remove(ctx, sb.ID()), sandbox.ErrNotFound)
			_, err = sb.Exec(ctx, sandbox.ExecRequest{Command: "true"})
			require.ErrorIs(t, err, sandbox.ErrSandboxGone)
		})
	}
}

func TestIntegrationSessionKeepsState(t *testing.T) {
	rt := newRuntime(t)
	sb := newSandbox(t, rt, sandbox.Spec{})
	ctx := context.Background()
	steps := []struct{ cmd, want string }{
		{"mkdir -p sub && cd sub && export KEEP=kept", ""},
		{"sleep 60 & echo $! > /tmp/bg.pid", ""},
		{"pwd; echo $KEEP; kill -0 $(cat /tmp/bg.pid) && echo bg-alive", "/workspace/sub\nkept\nbg-alive\n"},
		{"echo $X; pwd", "/workspace/sub\n"}, // Cwd and Env below do not leak
	}
	res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "pwd; echo $X", Cwd: "/tmp", Env: map[string]string{"X": "one"}})
	require.NoError(t, err)
	assert.Equal(t, "/tmp\none\n", string(res.Output))
	for _, s := range steps {
		res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: s.cmd})
		require.NoError(t, err, s.cmd)
		assert.Equal(t, s.want, strings.TrimPrefix(string(res.Output), "\n"), s.cmd)
		assert.Zero(t, res.ExitCode, s.cmd)
	}
	// A per-call exec-mode command does not see the session's state.
	res, err = sb.Exec(ctx, sandbox.ExecRequest{Command: "pwd; echo \"k=$KEEP\"", Mode: sandbox.ModeExec})
	require.NoError(t, err)
	assert.Equal(t, "/workspace\nk=\n", string(res.Output))
}

func TestIntegrationExecModeIsFresh(t *testing.T) {
	rt := newRuntime(t)
	sb := newSandbox(t, rt, sandbox.Spec{Mode: sandbox.ModeExec, Workdir: "/work/dir"})
	ctx := context.Background()
	_, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "cd /tmp && export KEEP=1"})
	require.NoError(t, err)
	res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "pwd; echo \"k=$KEEP\""})
	require.NoError(t, err)
	assert.Equal(t, "/work/dir\nk=\n", string(res.Output))
	res, err = sb.Exec(ctx, sandbox.ExecRequest{Command: "pwd; echo $X", Cwd: "/tmp", Env: map[string]string{"X": "a b"}})
	require.NoError(t, err)
	assert.Equal(t, "/tmp\na b\n", string(res.Output))
	res, err = sb.Exec(ctx, sandbox.ExecRequest{Command: "true", Cwd: "/does/not/exist"})
	require.NoError(t, err)
	assert.NotZero(t, res.ExitCode, string(res.Output))
	assert.Contains(t, string(res.Output), "/does/not/exist")
}

func TestIntegrationTimeout(t *testing.T) {
	rt := newRuntime(t)
	ctx := context.Background()
	for _, mode := range []sandbox.Mode{sandbox.ModeSession, sandbox.ModeExec} {
		t.Run(string(mode), func(t *testing.T) {
			sb := newSandbox(t, rt, sandbox.Spec{Mode: mode})
			_, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "export KEEP=1"})
			require.NoError(t, err)
			res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "echo partial; sleep 30; echo never", Timeout: 500 * time.Millisecond})
			require.NoError(t, err)
			assert.True(t, res.TimedOut)
			assert.Equal(t, sandbox.ExitCodeTimeout, res.ExitCode)
			assert.Equal(t, "partial\n", string(res.Output))
			assert.False(t, res.SessionLost)
			assert.Less(t, res.Duration, 5*time.Second)

			res, err = sb.Exec(ctx, sandbox.ExecRequest{Command: "echo \"k=$KEEP\"; ps | grep -c '[s]leep 30'"})
			require.NoError(t, err)
			want := map[sandbox.Mode]string{sandbox.ModeSession: "k=1\n0\n", sandbox.ModeExec: "k=\n0\n"}
			assert.Equal(t, want[mode], string(res.Output), "state kept in session mode; the sleep was killed")
		})
	}
}

// TestIntegrationSessionLost: a lost session leaves no shell behind, and a
// reopened one is the only session shell in the container.
func TestIntegrationSessionLost(t *testing.T) {
	rt := newRuntime(t)
	ctx := context.Background()
	tests := []struct {
		name     string
		req      sandbox.ExecRequest
		wantCode int
		timedOut bool
		cause    string
	}{
		{"builtin loop", sandbox.ExecRequest{Command: "while :; do :; done", Timeout: 300 * time.Millisecond}, sandbox.ExitCodeTimeout, true, sandbox.SessionTimeoutKill},
		{"exit", sandbox.ExecRequest{Command: "echo bye; exit 3"}, 3, false, sandbox.SessionStepEnded},
		{"kill process group", sandbox.ExecRequest{Command: "kill -9 0"}, 137, false, sandbox.SessionStepEnded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := newSandbox(t, rt, sandbox.Spec{})
			res, err := sb.Exec(ctx, tt.req)
			require.NoError(t, err)
			assert.True(t, res.SessionLost)
			assert.Equal(t, tt.wantCode, res.ExitCode)
			assert.Equal(t, tt.timedOut, res.TimedOut)
			_, err = sb.Exec(ctx, sandbox.ExecRequest{Command: "true"})
			var lost *sandbox.SessionLostError
			require.ErrorAs(t, err, &lost)
			assert.Equal(t, tt.cause, lost.Cause)
			require.NoError(t, sb.(sandbox.SessionReopener).Reopen(ctx))
			res, err = sb.Exec(ctx, sandbox.ExecRequest{Command: "echo ok; ps -o args >/tmp/ps; grep -cx /bin/sh /tmp/ps"})
			require.NoError(t, err)
			assert.Equal(t, "ok\n1\n", string(res.Output), "one session shell left")
			assert.False(t, res.SessionLost)

			// A reopened session (an exec, not the container's own shell)
			// is lost the same way, and the container lives on.
			res, err = sb.Exec(ctx, tt.req)
			require.NoError(t, err)
			assert.True(t, res.SessionLost, "reopened session")
			assert.Equal(t, tt.wantCode, res.ExitCode, "reopened session")
			require.NoError(t, sb.(sandbox.SessionReopener).Reopen(ctx))
			res, err = sb.Exec(ctx, sandbox.ExecRequest{Command: "echo ok"})
			require.NoError(t, err)
			assert.Equal(t, "ok\n", string(res.Output))
		})
	}
}

func TestIntegrationOutputCap(t *testing.T) {
	rt := newRuntime(t)
	for _, mode := range []sandbox.Mode{sandbox.ModeSession, sandbox.ModeExec} {
		t.Run(string(mode), func(t *testing.T) {
			sb := newSandbox(t, rt, sandbox.Spec{Mode: mode, OutputCap: 100})
			res, err := sb.Exec(context.Background(), sandbox.ExecRequest{Command: "yes abcdefghi | head -c 100000"})
			require.NoError(t, err)
			assert.True(t, res.Truncated)
			assert.Len(t, res.Output, 100)
			assert.EqualValues(t, 100000, res.OutputBytes)
			assert.True(t, strings.HasPrefix(string(res.Output), "abcdefghi\n"))
		})
	}
}

// TestIntegrationShellKilledBetweenSteps: a session shell killed from
// outside is not blamed on the next step, which does not run.
func TestIntegrationShellKilledBetweenSteps(t *testing.T) {
	rt := newRuntime(t)
	ctx := context.Background()
	sb := newSandbox(t, rt, sandbox.Spec{})
	res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "echo $$"})
	require.NoError(t, err)
	pid := strings.TrimSpace(string(res.Output))
	res, err = sb.Exec(ctx, sandbox.ExecRequest{Command: "kill -9 " + pid, Mode: sandbox.ModeExec})
	require.NoError(t, err)
	require.Zero(t, res.ExitCode, string(res.Output))
	time.Sleep(200 * time.Millisecond)

	_, err = sb.Exec(ctx, sandbox.ExecRequest{Command: "echo ran > /tmp/ran"})
	var lost *sandbox.SessionLostError
	require.ErrorAs(t, err, &lost)
	assert.Equal(t, sandbox.SessionKilledOutside, lost.Cause)
	assert.Equal(t, 137, lost.ExitCode)
	res, err = sb.Exec(ctx, sandbox.ExecRequest{Command: "test -e /tmp/ran", Mode: sandbox.ModeExec})
	require.NoError(t, err)
	assert.Equal(t, 1, res.ExitCode, "the step did not run")
}
