package agent_test

import (
	"errors"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/recycle/agenttest"
)

// TestInitOutlivesChild: init stays when its child exits (docker-init
// would end the container), ignores SIGHUP, and exits 143 on SIGTERM.
func TestInitOutlivesChild(t *testing.T) {
	cmd := exec.Command(agenttest.Build(t), "init", "--", "/bin/sh", "-c", "sleep 0.1 & exit 0")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	time.Sleep(500 * time.Millisecond)
	require.NoError(t, cmd.Process.Signal(syscall.SIGHUP))
	select {
	case err := <-done:
		t.Fatalf("init exited after its child: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-done:
		var ee *exec.ExitError
		require.True(t, errors.As(err, &ee), "exit: %v", err)
		assert.Equal(t, 143, ee.ExitCode())
	case <-time.After(5 * time.Second):
		t.Fatal("init did not exit on SIGTERM")
	}
}
