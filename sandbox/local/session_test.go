package local_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/local"
)

// TestExitWithBackgroundJob: a background job of an earlier step still holds
// the output pipe when the shell exits; the exit must be seen at once, not at
// the step timeout, and report the shell's status.
func TestExitWithBackgroundJob(t *testing.T) {
	sb := create(t, newRuntime(t, t.TempDir()), sandbox.Spec{})
	exec(t, sb, "sleep 300 &")
	start := time.Now()
	res, err := sb.Exec(context.Background(), sandbox.ExecRequest{Command: "exit 3", Timeout: 20 * time.Second})
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 3*time.Second)
	assert.True(t, res.SessionLost)
	assert.Equal(t, 3, res.ExitCode)
	assert.False(t, res.TimedOut)
	require.NoError(t, sb.(sandbox.SessionReopener).Reopen(context.Background()))
	exec(t, sb, "true")
}

// TestShellKilledBetweenSteps: a session shell killed from outside is not
// replaced quietly: the next step fails with the loss, and runs after an
// explicit Reopen.
func TestShellKilledBetweenSteps(t *testing.T) {
	sb := create(t, newRuntime(t, t.TempDir()), sandbox.Spec{})
	res := exec(t, sb, "echo $$")
	pid, err := strconv.Atoi(strings.TrimSpace(string(res.Output)))
	require.NoError(t, err)
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	time.Sleep(100 * time.Millisecond)

	_, err = sb.Exec(context.Background(), sandbox.ExecRequest{Command: "echo again", Timeout: 10 * time.Second})
	var lost *sandbox.SessionLostError
	require.ErrorAs(t, err, &lost)
	assert.Equal(t, sandbox.SessionKilledOutside, lost.Cause)
	assert.Equal(t, 128+9, lost.ExitCode)

	require.NoError(t, sb.(sandbox.SessionReopener).Reopen(context.Background()))
	res = exec(t, sb, "echo again")
	assert.Equal(t, "again\n", string(res.Output))
	assert.False(t, res.SessionLost)
}

// TestCloseKeepsDirectories: Close ends the shells but a later runtime can
// still open and remove the sandbox.
func TestCloseKeepsDirectories(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	rt, err := local.New(local.WithBaseDir(base))
	require.NoError(t, err)
	sb, err := rt.Create(ctx, sandbox.Spec{})
	t.Cleanup(func() {
		if sb != nil {
			_ = sb.Remove(ctx)
		}
	})
	require.NoError(t, err)
	res := exec(t, sb, "echo $$; echo kept > k.txt")
	pid, err := strconv.Atoi(strings.TrimSpace(strings.Split(string(res.Output), "\n")[0]))
	require.NoError(t, err)
	st := startTime(pid)
	require.NoError(t, rt.Close())
	assert.Eventually(t, func() bool { return !sameAlive(pid, st) }, 3*time.Second, 20*time.Millisecond, "session shell after Close")

	rt2 := newRuntime(t, base)
	opened, err := rt2.Open(ctx, sb.ID())
	require.NoError(t, err)
	res = exec(t, opened, "cat k.txt")
	assert.Equal(t, "kept\n", string(res.Output))
	require.NoError(t, rt2.Remove(ctx, sb.ID()))
	_, err = os.Stat(opened.(*local.Sandbox).Root())
	assert.ErrorIs(t, err, os.ErrNotExist)
}
