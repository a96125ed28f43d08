package session_test

import (
	"context"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// TestBrokenShellReaderExits: once a shell is broken and its process gone,
// the goroutine reading its output must end. A builtin loop that keeps
// printing fills the 16-chunk channel after Run has returned ErrBroken; with
// nobody left to receive, the reader blocks on the send forever (and keeps
// its buffers), even after the shell is killed and the pipe closed.
func TestBrokenShellReaderExits(t *testing.T) {
	sh, stop := startArgv(t, session.StartCommand, session.WithGrace(200*time.Millisecond))
	_, err := sh.Run(context.Background(), sandbox.ExecRequest{Command: "while :; do echo spam; done", Timeout: 100 * time.Millisecond})
	require.ErrorIs(t, err, session.ErrBroken)
	time.Sleep(300 * time.Millisecond) // let the loop fill the channel
	stop()                             // what a backend does with a broken shell
	assert.Eventually(t, func() bool { return readers() == 0 }, 2*time.Second, 50*time.Millisecond,
		"session reader goroutines still running:\n%s", stacks())
}

func readers() int { return strings.Count(stacks(), "session.(*Shell).read") }

func stacks() string {
	var b strings.Builder
	_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
	return b.String()
}
