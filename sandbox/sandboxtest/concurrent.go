package sandboxtest

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// concurrency is how many sandboxes testConcurrent runs at once.
const concurrency = 4

// testConcurrent: sandboxes created and driven at the same time do not
// see each other: each has its own files (at the same paths), session
// state and, where the backend isolates processes, processes and /tmp.
func (s *suite) testConcurrent(t *testing.T) {
	ctx := context.Background()
	sbs := make([]sandbox.Sandbox, concurrency)
	var g errgroup.Group
	for i := range sbs {
		g.Go(func() error {
			sb, err := s.rt.Create(ctx, s.specFor(sandbox.ModeSession))
			sbs[i] = sb
			return err
		})
	}
	err := g.Wait()
	for _, sb := range sbs {
		if sb != nil {
			t.Cleanup(func() { assert.NoError(t, sb.Remove(context.WithoutCancel(ctx))) })
		}
	}
	require.NoError(t, err, "concurrent creates")

	// Every sandbox writes the same paths and starts a process with the
	// same name, then each, all at once, reads back only its own.
	g = errgroup.Group{}
	for i, sb := range sbs {
		g.Go(func() error {
			me := strconv.Itoa(i)
			if err := sb.WriteFile(ctx, "who.txt", []byte(me), 0o644); err != nil {
				return err
			}
			c := "export ME=" + me + "; sleep 4321 >/dev/null 2>&1 &"
			if s.feats.ProcessIsolation { // else /tmp is the host's
				c += "\necho " + me + " > /tmp/rbx-who"
			}
			return expect(ctx, sb, c, "")
		})
	}
	require.NoError(t, g.Wait())
	g = errgroup.Group{}
	for i, sb := range sbs {
		g.Go(func() error {
			me := strconv.Itoa(i)
			if err := expect(ctx, sb, `echo "$(cat who.txt) $ME"`, me+" "+me+"\n"); err != nil {
				return err
			}
			if !s.feats.ProcessIsolation {
				return nil
			}
			// Only this sandbox's own sleep, and its own /tmp.
			return expect(ctx, sb, `n=0; for p in /proc/[0-9]*; do case "$(tr '\0' ' ' < $p/cmdline 2>/dev/null)" in "sleep 4321 ") n=$((n+1));; esac; done; echo "$n $(cat /tmp/rbx-who)"`, "1 "+me+"\n")
		})
	}
	require.NoError(t, g.Wait())
}

// expect runs c in sb and returns an error unless it exits 0 printing want.
func expect(ctx context.Context, sb sandbox.Sandbox, c, want string) error {
	res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: c, Timeout: stepTimeout})
	if err != nil {
		return fmt.Errorf("%s: %q: %w", sb.ID(), c, err)
	}
	if res.ExitCode != 0 || string(res.Output) != want {
		return fmt.Errorf("%s: %q: exit %d, output %q, want %q", sb.ID(), c, res.ExitCode, res.Output, want)
	}
	return nil
}
