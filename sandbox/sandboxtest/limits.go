package sandboxtest

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// need skips t when the backend does not declare the feature: the case
// cannot apply to it (see sandbox.Features).
func (s *suite) need(t *testing.T, declared bool, feature string) {
	t.Helper()
	if !declared {
		t.Skipf("the %s backend does not declare sandbox.Features.%s", s.rt.Name(), feature)
	}
}

// testPidsLimit: the pids limit bounds a command that starts processes
// without end; the sandbox works again once they are gone.
func (s *suite) testPidsLimit(t *testing.T) {
	s.need(t, s.feats.PidsLimit, "PidsLimit")
	const pids = 24
	spec := s.specFor(sandbox.ModeExec)
	spec.Limits.Pids = pids
	sb := s.create(t, spec)
	// 100 processes that each live 3 s, started by a subshell (busybox sh
	// exits at its first failed fork), then counted with builtins only:
	// without the limit the count passes 100.
	res := run(t, sb, sandbox.ExecRequest{Timeout: time.Minute,
		Command: `(for i in $(seq 100); do sleep 3 & done) 2>/dev/null; set -- /proc/[0-9]*; echo "$#"`})
	n, err := strconv.Atoi(strings.TrimSpace(string(res.Output)))
	require.NoError(t, err, "output %q", res.Output)
	assert.LessOrEqual(t, n, pids, "processes seen under a pids limit of %d", pids)
	assert.Greater(t, n, 1)
	time.Sleep(3500 * time.Millisecond) // the sleeps end
	assert.Equal(t, "ok\n", string(runOK(t, sb, "echo ok").Output))
}

// testMemoryLimit: a command allocating past the memory limit is killed and
// reported as OOM-killed (or, if the OOM killer took the whole sandbox, as
// a *sandbox.GoneError with cause oom_killed); the sandbox goes on.
func (s *suite) testMemoryLimit(t *testing.T) {
	s.need(t, s.feats.MemoryLimit, "MemoryLimit")
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			spec := s.specFor(mode)
			spec.Limits.MemoryBytes = 32 << 20
			sb := s.create(t, spec)
			res, err := sb.Exec(context.Background(), sandbox.ExecRequest{Command: "dd if=/dev/zero of=/dev/null bs=100M count=1", Timeout: time.Minute})
			var ge *sandbox.GoneError
			if errors.As(err, &ge) {
				assert.Equal(t, sandbox.CauseOOMKilled, ge.Cause, err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, 137, res.ExitCode, "%q", res.Output)
			assert.True(t, res.OOMKilled, "OOMKilled")
			if mode == sandbox.ModeSession && res.SessionLost {
				s.reopen(t, sb) // the OOM killer may pick the shell itself
			}
			after := runOK(t, sb, "echo alive; exit 0")
			assert.Equal(t, "alive\n", string(after.Output))
			assert.False(t, after.OOMKilled, "only the step that was killed")
		})
	}
}

// testFileSizeLimit: a write past Limits.FileSizeBytes fails (SIGXFSZ) and
// the file stops at the limit, in both modes.
func (s *suite) testFileSizeLimit(t *testing.T) {
	s.need(t, s.feats.FileSizeLimit, "FileSizeLimit")
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			spec := s.specFor(mode)
			spec.Limits.FileSizeBytes = 4 << 20
			sb := s.create(t, spec)
			res := run(t, sb, cmd("dd if=/dev/zero of=big bs=1M count=64 2>/dev/null"))
			assert.Equal(t, 128+25, res.ExitCode, "SIGXFSZ: %q", res.Output)
			res = runOK(t, sb, "wc -c < big | tr -d ' '")
			assert.Equal(t, "4194304\n", string(res.Output))
		})
	}
}
