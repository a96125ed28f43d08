package sandboxtest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// testStepTimeout: a step that outlives its timeout returns its partial
// output with exit 124 soon after the deadline, and the sandbox (with the
// session's state) remains usable.
func (s *suite) testStepTimeout(t *testing.T) {
	const timeout = time.Second
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			sb := s.create(t, s.specFor(mode))
			runOK(t, sb, "export RBX_KEEP=kept")
			start := time.Now()
			res := run(t, sb, sandbox.ExecRequest{Command: "echo partial; sleep 30; echo never", Timeout: timeout})
			elapsed := time.Since(start)
			assert.True(t, res.TimedOut, "TimedOut")
			assert.Equal(t, sandbox.ExitCodeTimeout, res.ExitCode)
			assert.Equal(t, "partial\n", string(res.Output))
			assert.False(t, res.SessionLost, "a killable step must not cost the session")
			assert.Less(t, elapsed, timeout+3*time.Second)
			assert.GreaterOrEqual(t, elapsed, timeout)

			want := "kept\n"
			if mode == sandbox.ModeExec {
				want = "\n"
			}
			after := runOK(t, sb, `echo "$RBX_KEEP"`)
			assert.Equal(t, want, string(after.Output))
			assert.False(t, after.SessionLost)
		})
	}
}

// testBusyLoop: a loop of shell builtins cannot be killed without killing
// the shell; in session mode the session is lost and the result says so,
// later steps fail with ErrSessionLost, and Reopen makes it usable again.
// In exec mode it is an ordinary timeout.
func (s *suite) testBusyLoop(t *testing.T) {
	const timeout = 500 * time.Millisecond
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			sb := s.create(t, s.specFor(mode))
			start := time.Now()
			res := run(t, sb, sandbox.ExecRequest{Command: "echo spinning; while :; do :; done", Timeout: timeout})
			assert.True(t, res.TimedOut, "TimedOut")
			assert.Equal(t, sandbox.ExitCodeTimeout, res.ExitCode)
			assert.Equal(t, "spinning\n", string(res.Output))
			assert.Less(t, time.Since(start), timeout+10*time.Second)
			if mode == sandbox.ModeSession {
				assert.True(t, res.SessionLost, "SessionLost")
				requireLostAfter(t, sb, sandbox.SessionTimeoutKill)
				s.reopen(t, sb)
			} else {
				assert.False(t, res.SessionLost, "SessionLost")
			}
			after := runOK(t, sb, "echo still here")
			assert.Equal(t, "still here\n", string(after.Output))
			assert.False(t, after.SessionLost)
		})
	}
}
