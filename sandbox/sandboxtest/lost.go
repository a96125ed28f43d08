package sandboxtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// lostCases are steps that end the session shell, after a first step that
// leaves state behind (cwd, an export).
var lostCases = []struct {
	name   string
	before []string // steps that must succeed first
	cmd    string   // the step that ends the shell
	code   int      // its exit code: the shell's status
	out    string
}{
	{"set -e then false", []string{"set -e"}, "false", 1, ""},
	{"exit 3", nil, "echo bye; exit 3", 3, "bye\n"},
	{"kill -9 0", nil, "kill -9 0", 128 + 9, ""},
	{"kill process group", nil, "kill -9 -$$", 128 + 9, ""},
}

// testSessionLost: a step that ends the session shell reports SessionLost
// with the shell's status; the next step is not run in a fresh shell but
// fails with ErrSessionLost; Reopen gives a new, empty session.
func (s *suite) testSessionLost(t *testing.T) {
	for _, tc := range lostCases {
		t.Run(tc.name, func(t *testing.T) {
			sb := s.create(t, s.specFor(sandbox.ModeSession))
			runOK(t, sb, "export FOO=bar; mkdir -p sub; cd sub")
			for _, c := range tc.before {
				runOK(t, sb, c)
			}
			start := time.Now()
			res := run(t, sb, cmd(tc.cmd))
			assert.Less(t, time.Since(start), 10*time.Second, "the loss is seen at once")
			assert.True(t, res.SessionLost, "SessionLost")
			assert.False(t, res.TimedOut, "TimedOut")
			assert.Equal(t, tc.code, res.ExitCode, "the shell's status")
			assert.Equal(t, tc.out, string(res.Output))

			lost := requireLostAfter(t, sb, sandbox.SessionStepEnded)
			assert.Equal(t, tc.code, lost.ExitCode)
			// Exec mode does not need the session.
			res = run(t, sb, sandbox.ExecRequest{Command: "echo exec", Mode: sandbox.ModeExec})
			assert.Equal(t, "exec\n", string(res.Output))

			s.reopen(t, sb)
			res = runOK(t, sb, `echo "FOO=$FOO"; basename "$PWD"`)
			assert.Equal(t, "FOO=\n"+s.base()+"\n", string(res.Output), "a reopened session starts afresh")
		})
	}
}

// testLostStaysLost: the loss is reported on every later step, not once.
func (s *suite) testLostStaysLost(t *testing.T) {
	sb := s.create(t, s.specFor(sandbox.ModeSession))
	res := run(t, sb, cmd("exit 3"))
	require.True(t, res.SessionLost)
	for range 3 {
		requireLostAfter(t, sb, sandbox.SessionStepEnded)
	}
}

// testEndShellExecMode: in exec mode every step has its own shell, so the
// same steps are ordinary exit statuses.
func (s *suite) testEndShellExecMode(t *testing.T) {
	for _, tc := range lostCases {
		t.Run(tc.name, func(t *testing.T) {
			sb := s.create(t, s.specFor(sandbox.ModeExec))
			res := run(t, sb, cmd(tc.cmd))
			assert.False(t, res.SessionLost, "SessionLost")
			assert.Equal(t, tc.code, res.ExitCode)
			assert.Equal(t, tc.out, string(res.Output))
			runOK(t, sb, "true")
		})
	}
}

// requireLostAfter runs a step after the loss and requires the typed error.
func requireLostAfter(t *testing.T, sb sandbox.Sandbox, cause string) *sandbox.SessionLostError {
	t.Helper()
	_, err := sb.Exec(context.Background(), sandbox.ExecRequest{Command: `echo "$FOO"; pwd`, Timeout: stepTimeout})
	require.ErrorIs(t, err, sandbox.ErrSessionLost)
	assert.NotErrorIs(t, err, sandbox.ErrSandboxGone, "a lost session is not a dead sandbox")
	var lost *sandbox.SessionLostError
	require.True(t, errors.As(err, &lost), "a *SessionLostError: %v", err)
	assert.Equal(t, sb.ID(), lost.ID)
	assert.Equal(t, cause, lost.Cause)
	return lost
}

// reopen asks for a new session explicitly.
func (s *suite) reopen(t *testing.T, sb sandbox.Sandbox) {
	t.Helper()
	r, ok := sb.(sandbox.SessionReopener)
	require.True(t, ok, "%T implements sandbox.SessionReopener", sb)
	require.NoError(t, r.Reopen(context.Background()))
}

// testCancel: a cancelled ctx stops the step and is an error wrapping
// context.Canceled, never a TimedOut result; the session survives a step
// that could be killed.
func (s *suite) testCancel(t *testing.T) {
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			sb := s.create(t, s.specFor(mode))
			runOK(t, sb, "export FOO=kept")
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(300*time.Millisecond, cancel)
			start := time.Now()
			res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "echo partial; sleep 30", Timeout: stepTimeout})
			require.ErrorIs(t, err, context.Canceled)
			assert.False(t, res.TimedOut, "a cancellation is not a timeout")
			assert.NotEqual(t, sandbox.ExitCodeTimeout, res.ExitCode)
			assert.False(t, res.SessionLost)
			assert.Less(t, time.Since(start), 10*time.Second)

			_, err = sb.Exec(ctx, cmd("echo never"))
			require.ErrorIs(t, err, context.Canceled, "an already cancelled ctx")

			want := "kept\n"
			if mode == sandbox.ModeExec {
				want = "\n"
			}
			after := runOK(t, sb, `echo "$FOO"`)
			assert.Equal(t, want, string(after.Output), "the session survives the cancelled step")
		})
	}
}

// testTraceKeepsSession: `set -x` and `set -v` trace the protocol's own
// lines too; none of them may be taken for the step's end.
func (s *suite) testTraceKeepsSession(t *testing.T) {
	for _, opt := range []string{"-x", "-v"} {
		t.Run(opt, func(t *testing.T) {
			sb := s.create(t, s.specFor(sandbox.ModeSession))
			runOK(t, sb, "export FOO=kept; set "+opt)
			res := runOK(t, sb, "echo traced")
			assert.Contains(t, string(res.Output), "traced\n")
			assert.False(t, res.SessionLost)
			runOK(t, sb, "set +xv")
			res = runOK(t, sb, `echo "$FOO"`)
			assert.Equal(t, "kept\n", string(res.Output), "tracing is off again")
		})
	}
}
