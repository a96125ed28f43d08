package docker_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/recycle/recycletest"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/sandboxtest"
)

// TestIntegrationRecycleTerminal: an episode that typed into a terminal
// and left programs on it — a background job, one in a session of its
// own, an editor in the foreground — recycled while the terminal is still
// attached: the recycle kills them all (the terminal's end reads EOF) and
// the sandbox is as fresh as before, twice.
func TestIntegrationRecycleTerminal(t *testing.T) {
	rt := newRecycleRuntime(t, busybox)
	sb := newSandbox(t, rt, recyclable(busybox, sandbox.ModeSession))
	fresh := recycletest.Digest(t, sb)
	for round := 0; round < 2; round++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		p, err := sb.(sandbox.Terminal).StartTerminal(ctx, sandbox.TerminalRequest{Argv: []string{"/bin/sh"}})
		require.NoError(t, err)
		w := sandboxtest.WatchTerminal(p)
		_, err = io.WriteString(p, "sleep 1000 &\nsetsid sleep 999 &\necho typed > /tmp/term\necho marker-$((40+2))\nvi /tmp/notes\n")
		require.NoError(t, err)
		require.Eventually(t, w.Shows("marker-42"), 20*time.Second, 50*time.Millisecond, "the terminal ran the keystrokes")
		time.Sleep(200 * time.Millisecond) // vi draws its screen
		rep, err := sb.(sandbox.Recycler).Recycle(ctx)
		require.NoError(t, err)
		t.Logf("round %d: %+v", round, rep)
		select {
		case <-w.Ended():
		case <-time.After(10 * time.Second):
			t.Fatal("the terminal did not end with its processes")
		}
		_ = p.Close()
		cancel()
		recycletest.RequireSameDigest(t, fresh, recycletest.Digest(t, sb), "after a terminal episode")
	}
}
