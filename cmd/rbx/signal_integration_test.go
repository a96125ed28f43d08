package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/internal/testenv"
	"github.com/rbx-sandbox/rbx/sandbox"
)

// buildRBX compiles the rbx binary for tests that need a real process.
func buildRBX(tb testing.TB) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "rbx")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(tb, err, "%s", out)
	return bin
}

// dockerOrSkip returns the docker runtime (through the backends rbx
// itself lists) with rbx/busybox built, closed at test end; it skips under
// -short, since make unit runs no Docker test, and when no engine answers
// (fails then when RBX_REQUIRE_DOCKER=1).
func dockerOrSkip(t *testing.T, imgs ...string) imageRuntime {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping a test that needs the Docker engine")
	}
	ctx := context.Background()
	rt, err := sandbox.Open(ctx, "docker", backends(slog.New(slog.DiscardHandler), io.Discard, backendOptions{})...)
	if errors.Is(err, sandbox.ErrUnavailable) {
		testenv.Missing(t, "no Docker engine answers: %v", err)
	}
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close() })
	store, ok := rt.(imageRuntime)
	require.True(t, ok, "the docker runtime keeps images")
	for _, img := range append([]string{"rbx/busybox:latest"}, imgs...) {
		_, err := store.EnsureImage(ctx, img)
		require.NoError(t, err, "build %s", img)
	}
	return store
}

// TestIntegrationReplaySIGINTLeavesNothing: SIGINT (and SIGTERM) in the
// middle of a replay stops it, removes its container and exits 130.
func TestIntegrationReplaySIGINTLeavesNothing(t *testing.T) {
	rt := dockerOrSkip(t)
	bin := buildRBX(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			id := fmt.Sprintf("sigtest-%d", time.Now().UnixNano())
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "task.yaml"),
				[]byte("id: "+id+"\ninstruction: wait\nimage: rbx/busybox:latest\nverify: {command: \"true\"}\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "t.json"), []byte(`{"id": "slow", "task": "task.yaml", "steps": [
				{"action": "shell", "command": "echo started"},
				{"action": "shell", "command": "sleep 60", "timeout": "120s"}]}`), 0o644))
			cmd := exec.Command(bin, "replay", filepath.Join(dir, "t.json"), "--runtime", "docker")
			var errOut bytes.Buffer
			cmd.Stderr = &errOut
			stdout, err := cmd.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			// Wait until step 0 is done: the container exists and step 1 runs.
			sc := bufio.NewScanner(stdout)
			for sc.Scan() && !strings.HasPrefix(sc.Text(), "0 ") {
			}
			selector := map[string]string{sandbox.LabelTask: id}
			list, err := rt.List(context.Background(), selector)
			require.NoError(t, err)
			require.Len(t, list, 1, "the replay's container is running")
			require.NoError(t, cmd.Process.Signal(sig))
			rest, _ := io.ReadAll(stdout)
			err = cmd.Wait()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee)
			assert.Equal(t, exitInterrupted, ee.ExitCode())
			// Cancellation is not failure: the interrupted step is neither a
			// timeout nor a divergence.
			said := string(rest) + errOut.String()
			assert.Contains(t, said, "context canceled")
			for _, word := range []string{"timeout", "diverged", "failed"} {
				assert.NotContains(t, said, word)
			}
			list, err = rt.List(context.Background(), selector)
			require.NoError(t, err)
			assert.Empty(t, list, "no container left behind")
		})
	}
}
