package session_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// startShell runs a real host shell on the protocol, killing with KillScript.
func startShell(t *testing.T, opts ...session.Option) *session.Shell {
	t.Helper()
	cmd := exec.Command(session.StartCommand[0], session.StartCommand[1:]...)
	cmd.Dir = t.TempDir()
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	cmd.Stdout, cmd.Stderr = pw, pw
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); _ = pr.Close() })
	require.NoError(t, pw.Close()) // the child holds its own copy; EOF comes when it exits
	kill := func(ctx context.Context, marker string) error {
		return exec.CommandContext(ctx, "sh", "-c", session.KillScript(marker)).Run()
	}
	sh, err := session.New(context.Background(), stdin, pr, kill, opts...)
	require.NoError(t, err)
	return sh
}

func TestShellKeepsState(t *testing.T) {
	sh := startShell(t)
	ctx := context.Background()
	steps := []struct {
		cmd      string
		wantOut  string
		wantCode int
	}{
		{"mkdir -p sub && cd sub && export GREETING=hi", "", 0},
		{"basename \"$PWD\"; echo $GREETING", "sub\nhi\n", 0},
		{"echo 'quote'\"d\"; exit_code() { return 7; }; exit_code", "quoted\n", 7},
		{"echo unterminated \"", "", 2},
		{"cat <<'EOF'\nline $HOME\nEOF", "line $HOME\n", 0},
		{"echo err >&2; false", "err\n", 1},
		{"printf 'no newline'", "no newline", 0},
	}
	for _, s := range steps {
		res, err := sh.Run(ctx, sandbox.ExecRequest{Command: s.cmd, Timeout: 5 * time.Second})
		require.NoError(t, err, s.cmd)
		if s.wantCode == 2 { // syntax error message differs between shells
			assert.NotZero(t, res.ExitCode, s.cmd)
			continue
		}
		assert.Equal(t, s.wantOut, string(res.Output), s.cmd)
		assert.Equal(t, s.wantCode, res.ExitCode, s.cmd)
	}
}

func TestShellCwdEnvDoNotLeak(t *testing.T) {
	sh := startShell(t)
	ctx := context.Background()
	res, err := sh.Run(ctx, sandbox.ExecRequest{Command: "pwd; echo $X", Cwd: "/", Env: map[string]string{"X": "a b"}})
	require.NoError(t, err)
	assert.Equal(t, "/\na b\n", string(res.Output))
	res, err = sh.Run(ctx, sandbox.ExecRequest{Command: "[ \"$PWD\" != / ] && echo \"x=$X\""})
	require.NoError(t, err)
	assert.Equal(t, "x=\n", string(res.Output))
}

func TestShellTimeoutKeepsSession(t *testing.T) {
	sh := startShell(t)
	ctx := context.Background()
	_, err := sh.Run(ctx, sandbox.ExecRequest{Command: "export KEEP=1; sleep 30 & echo $! > bg.pid"})
	require.NoError(t, err)
	res, err := sh.Run(ctx, sandbox.ExecRequest{Command: "echo partial; sleep 20; echo never", Timeout: 300 * time.Millisecond})
	require.NoError(t, err)
	assert.True(t, res.TimedOut)
	assert.Equal(t, sandbox.ExitCodeTimeout, res.ExitCode)
	assert.Equal(t, "partial\n", string(res.Output))
	assert.Less(t, res.Duration, 6*time.Second, "the kill and the report, within the default grace")
	res, err = sh.Run(ctx, sandbox.ExecRequest{Command: "echo $KEEP; kill -0 $(cat bg.pid) && echo bg-alive"})
	require.NoError(t, err)
	assert.Equal(t, "1\nbg-alive\n", string(res.Output))
}

func TestShellOutputCap(t *testing.T) {
	sh := startShell(t, session.WithOutputCap(100))
	res, err := sh.Run(context.Background(), sandbox.ExecRequest{Command: "yes abcdefghi | head -c 100000"})
	require.NoError(t, err)
	assert.True(t, res.Truncated)
	assert.Len(t, res.Output, 100)
	assert.EqualValues(t, 100000, res.OutputBytes)
	assert.True(t, strings.HasPrefix(string(res.Output), "abcdefghi\n"))
}

func TestShellBuiltinLoopBreaksSession(t *testing.T) {
	sh := startShell(t, session.WithGrace(300*time.Millisecond))
	res, err := sh.Run(context.Background(), sandbox.ExecRequest{Command: "while :; do :; done", Timeout: 200 * time.Millisecond})
	require.ErrorIs(t, err, session.ErrBroken)
	assert.True(t, res.TimedOut)
	_, err = sh.Run(context.Background(), sandbox.ExecRequest{Command: "true"})
	require.ErrorIs(t, err, session.ErrBroken)
}

func TestShellExit(t *testing.T) {
	sh := startShell(t)
	_, err := sh.Run(context.Background(), sandbox.ExecRequest{Command: "exit 3"})
	require.ErrorIs(t, err, session.ErrExited)
}

// TestShellExitMarker: a supervisor that outlives the shell reports its
// exit with the marker, so the exit is seen at once even though a
// background job keeps the output stream open.
func TestShellExitMarker(t *testing.T) {
	script := session.ReadExitMarker + "; sh; " + session.ExitScript + "; sleep 30"
	sh, _ := startArgv(t, []string{"/bin/sh", "-c", script}, session.WithExitReport())
	start := time.Now()
	res, err := sh.Run(context.Background(), sandbox.ExecRequest{Command: "sleep 30 & echo bye; exit 3", Timeout: 10 * time.Second})
	require.ErrorIs(t, err, session.ErrExited)
	assert.Less(t, time.Since(start), 5*time.Second, "seen at once, not at the step timeout")
	assert.Equal(t, 3, res.ExitCode)
	assert.Equal(t, "bye\n", string(res.Output))
}

// TestCancelIsNotTimeout: a cancelled ctx stops the step and is an error
// wrapping context.Canceled; the shell stays usable and keeps its state.
func TestCancelIsNotTimeout(t *testing.T) {
	sh := startShell(t)
	_, err := sh.Run(context.Background(), sandbox.ExecRequest{Command: "export KEEP=1", Timeout: 5 * time.Second})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	res, err := sh.Run(ctx, sandbox.ExecRequest{Command: "echo partial; sleep 30", Timeout: 20 * time.Second})
	require.ErrorIs(t, err, context.Canceled)
	assert.NotErrorIs(t, err, session.ErrBroken)
	assert.False(t, res.TimedOut)
	assert.Equal(t, "partial\n", string(res.Output))

	_, err = sh.Run(ctx, sandbox.ExecRequest{Command: "echo never", Timeout: 5 * time.Second})
	require.ErrorIs(t, err, context.Canceled, "a cancelled ctx runs nothing")
	res, err = sh.Run(context.Background(), sandbox.ExecRequest{Command: "echo $KEEP", Timeout: 5 * time.Second})
	require.NoError(t, err)
	assert.Equal(t, "1\n", string(res.Output))
}

// TestExitedBeforeStep: a shell that exited since the last step (its
// supervisor reported it) is reported before the step is written.
func TestExitedBeforeStep(t *testing.T) {
	cmd := exec.Command("sh", "-c", session.ReadExitMarker+"; sh; "+session.ExitScript+"; sleep 30")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	cmd.Stdout, cmd.Stderr = pw, pw
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); _ = pr.Close() })
	require.NoError(t, pw.Close())
	sh, err := session.New(context.Background(), stdin, pr, func(context.Context, string) error { return nil }, session.WithExitReport())
	require.NoError(t, err)
	// Kill the shell from outside: its pid is the handshake's.
	require.NoError(t, exec.Command("kill", "-9", sh.PID()).Run())
	time.Sleep(200 * time.Millisecond)
	res, err := sh.Run(context.Background(), sandbox.ExecRequest{Command: "echo never", Timeout: 5 * time.Second})
	require.ErrorIs(t, err, session.ErrExitedBefore)
	require.ErrorIs(t, err, session.ErrExited)
	assert.Equal(t, 137, res.ExitCode)
	assert.Empty(t, res.Output)
}
