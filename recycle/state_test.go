package recycle_test

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/recycle"
	"github.com/rbx-sandbox/rbx/sandbox"
)

// TestStateRecycle: a failed recycle, or a released state, refuses every
// later one; a nil state refuses as unsupported; a good one reports.
func TestStateRecycle(t *testing.T) {
	ctx := context.Background()
	ok := func(context.Context, *sandbox.RecycleReport) (string, error) { return "", nil }
	fail := func(context.Context, *sandbox.RecycleReport) (string, error) {
		return "verify", errors.New("a difference left")
	}

	_, err := (*recycle.State)(nil).Recycle(ctx, "sb", ok)
	require.ErrorIs(t, err, sandbox.ErrUnsupported)
	require.ErrorIs(t, err, sandbox.ErrRecycle)

	st := &recycle.State{}
	rep, err := st.Recycle(ctx, "sb", func(_ context.Context, rep *sandbox.RecycleReport) (string, error) {
		rep.Removed = 3
		return "", nil
	})
	require.NoError(t, err)
	assert.Equal(t, 3, rep.Removed)
	assert.Positive(t, rep.Duration)

	_, err = st.Recycle(ctx, "sb", fail)
	var re *sandbox.RecycleError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "verify", re.Reason)
	_, err = st.Recycle(ctx, "sb", ok)
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "broken", re.Reason, "a sandbox whose recycle failed is never recycled again")

	released := &recycle.State{}
	released.Release()
	_, err = released.Recycle(ctx, "sb", ok)
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "broken", re.Reason)
	assert.Zero(t, (*recycle.State)(nil).Prepared())
}

// TestRunAttached runs a host process as the agent would run: the talk
// gets its streams, its exit status and stderr are checked after.
func TestRunAttached(t *testing.T) {
	start := func(script string) recycle.StartFunc {
		return func(stdin io.Reader, stdout, stderr io.Writer) (func() (int, error), func(), error) {
			cmd := exec.Command("/bin/sh", "-c", script)
			cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
			if err := cmd.Start(); err != nil {
				return nil, nil, err
			}
			wait := func() (int, error) {
				err := cmd.Wait()
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					return ee.ExitCode(), nil
				}
				return 0, err
			}
			return wait, func() { _ = cmd.Process.Kill() }, nil
		}
	}
	for _, tc := range []struct {
		name, script, err string
		talkErr           error
	}{
		{"echoes its input", "tr a-z A-Z", "", nil},
		{"a failed exit names stderr", "cat >/dev/null; echo boom >&2; exit 3", "exit 3: boom", nil},
		{"a failed talk kills it", "sleep 60", "talk failed", errors.New("talk failed")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []byte
			err := recycle.RunAttached(context.Background(), "test", start(tc.script), func(in io.Writer, out io.Reader) error {
				if tc.talkErr != nil {
					return tc.talkErr
				}
				if _, err := in.Write([]byte("abc")); err != nil {
					return err
				}
				in.(io.Closer).Close()
				var err error
				got, err = io.ReadAll(out)
				return err
			})
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "ABC", string(got))
		})
	}
}

// shell records what a recycle did to the session shell.
type shell struct {
	closed, reopened int
	fail             error
}

func (s *shell) Close() { s.closed++ }
func (s *shell) Reopen(context.Context) error {
	s.reopened++
	return s.fail
}

// TestStateRecycleExec: the shell is hung up before the restore and, in
// session mode, reopened after; a shell that cannot reopen fails the
// recycle as "session".
func TestStateRecycleExec(t *testing.T) {
	ctx := context.Background()
	restore := func(context.Context, *sandbox.RecycleReport) (string, error) { return "", nil }
	for _, tc := range []struct {
		name     string
		session  bool
		fail     error
		reopened int
		reason   string
	}{
		{"session", true, nil, 1, ""},
		{"exec mode", false, nil, 0, ""},
		{"the shell does not reopen", true, errors.New("no shell"), 1, "session"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sh := &shell{fail: tc.fail}
			_, err := (&recycle.State{}).RecycleExec(ctx, "sb", sh, tc.session, restore)
			assert.Equal(t, 1, sh.closed)
			assert.Equal(t, tc.reopened, sh.reopened)
			if tc.reason == "" {
				require.NoError(t, err)
				return
			}
			var re *sandbox.RecycleError
			require.ErrorAs(t, err, &re)
			assert.Equal(t, tc.reason, re.Reason)
		})
	}
}
