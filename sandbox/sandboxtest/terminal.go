package sandboxtest

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// testTerminal checks sandbox.Terminal where the backend has it: the
// process runs on a terminal (stdin and stdout are ttys), in Cwd, with the
// sandbox's environment plus Env; what is typed reaches it, and Read ends
// with io.EOF once it exits.
func (s *suite) testTerminal(t *testing.T) {
	sb := s.create(t, s.specFor(sandbox.ModeSession))
	term, ok := sb.(sandbox.Terminal)
	if !ok {
		t.Skip("the backend has no terminals")
	}
	runOK(t, sb, "mkdir -p tsub")
	ctx := context.Background()
	p, err := term.StartTerminal(ctx, sandbox.TerminalRequest{
		Argv: []string{"/bin/sh", "-c", `[ -t 0 ] && [ -t 1 ] && echo on-a-tty; echo "$` + suiteVar + ` $RBX_TERM"; basename "$PWD"; IFS= read -r l; echo "got:$l"`},
		Env:  map[string]string{"RBX_TERM": "term"}, Cwd: "tsub"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	_, err = io.WriteString(p, "typed\n")
	require.NoError(t, err)
	done := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(p); done <- b }()
	select {
	case out := <-done:
		for _, want := range []string{"on-a-tty", suiteValue + " term", "tsub", "got:typed"} {
			assert.Contains(t, string(out), want)
		}
	case <-time.After(stepTimeout):
		t.Fatal("the terminal did not end after its process exited")
	}
}

// testTerminalInterrupt checks what typing into a terminal needs of a
// backend: Ctrl-C reaches the foreground program (the terminal's line
// discipline turns it into SIGINT for its process group), and the
// interactive shell goes on.
func (s *suite) testTerminalInterrupt(t *testing.T) {
	sb := s.create(t, s.specFor(sandbox.ModeSession))
	term, ok := sb.(sandbox.Terminal)
	if !ok {
		t.Skip("the backend has no terminals")
	}
	ctx := context.Background()
	p, err := term.StartTerminal(ctx, sandbox.TerminalRequest{Argv: []string{"/bin/sh", "-i"}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	w := WatchTerminal(p)
	_, err = io.WriteString(p, "sleep 100; echo not-interrupted\n")
	require.NoError(t, err)
	time.Sleep(500 * time.Millisecond) // sleep is in the foreground
	_, err = io.WriteString(p, "\x03")
	require.NoError(t, err)
	_, err = io.WriteString(p, "echo alive-$((20 + 22))\n")
	require.NoError(t, err)
	require.Eventually(t, w.Shows("alive-42"), 20*time.Second, 50*time.Millisecond, "Ctrl-C ended the sleep; the shell answered")
	_, _ = io.WriteString(p, "exit\n")
}
