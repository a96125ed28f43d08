package session_test

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// TestPOSIXShellSurvivesSpecialBuiltinErrors runs the protocol on POSIX
// shells without bash (dash, busybox ash), as on a busybox image. There a
// syntax error inside `eval` (a special built-in) exits the non-interactive
// shell, which bash does not do; `command eval` removes the special
// built-in's exit-on-error property in every POSIX shell.
func TestPOSIXShellSurvivesSpecialBuiltinErrors(t *testing.T) {
	shells := map[string][]string{"dash": {"dash"}, "busybox": {"busybox", "sh"}}
	for name, argv := range shells {
		t.Run(name, func(t *testing.T) {
			if _, err := exec.LookPath(argv[0]); err != nil {
				t.Skipf("%s not installed", argv[0])
			}
			sh, _ := startArgv(t, argv)
			ctx := context.Background()
			_, err := sh.Run(ctx, sandbox.ExecRequest{Command: "export KEEP=kept", Timeout: 5 * time.Second})
			require.NoError(t, err)
			for _, bad := range []string{`echo "unterminated`, "if then fi", ". ./no-such-file", "readonly R=1; R=2"} {
				res, err := sh.Run(ctx, sandbox.ExecRequest{Command: bad, Timeout: 5 * time.Second})
				require.NoError(t, err, bad)
				assert.NotZero(t, res.ExitCode, bad)
			}
			res, err := sh.Run(ctx, sandbox.ExecRequest{Command: `echo "$KEEP"`, Timeout: 5 * time.Second})
			require.NoError(t, err)
			assert.Equal(t, "kept\n", string(res.Output))
		})
	}
}

// startArgv runs argv (a shell reading commands from stdin) on the protocol.
// stop kills the shell and closes the output pipe; it is also a cleanup.
func startArgv(t *testing.T, argv []string, opts ...session.Option) (sh *session.Shell, stop func()) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = t.TempDir()
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	cmd.Stdout, cmd.Stderr = pw, pw
	require.NoError(t, cmd.Start())
	stop = func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); _ = pr.Close() }
	t.Cleanup(stop)
	require.NoError(t, pw.Close())
	kill := func(ctx context.Context, marker string) error {
		return exec.CommandContext(ctx, "sh", "-c", session.KillScript(marker)).Run()
	}
	sh, err = session.New(context.Background(), stdin, pr, kill, opts...)
	require.NoError(t, err)
	return sh, stop
}
