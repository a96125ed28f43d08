package sandboxtest

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// testBackgroundJobs: a job started in the background by one session step
// keeps running between steps (its output grows while no step runs), and
// stays the session shell's child: a later step can kill it and wait for
// its status.
func (s *suite) testBackgroundJobs(t *testing.T) {
	sb := s.create(t, s.specFor(sandbox.ModeSession))
	// The step waits for the first tick: on a loaded machine (CI runs the
	// suite under the race detector) the job may not have been scheduled
	// before the next step reads the file.
	runOK(t, sb, "(while :; do echo t >> ticks; sleep 0.1; done) >/dev/null 2>&1 &\necho $! > tick.pid\nwhile [ ! -s ticks ]; do sleep 0.01; done")
	ticks := func() int {
		t.Helper()
		n, err := strconv.Atoi(strings.TrimSpace(string(runOK(t, sb, "wc -l < ticks").Output)))
		require.NoError(t, err)
		return n
	}
	first := ticks()
	time.Sleep(time.Second)
	assert.Greater(t, ticks(), first+3, "the job ran between steps")
	res := run(t, sb, cmd(`p=$(cat tick.pid); kill "$p"; wait "$p"; echo "status $?"`))
	// busybox sh reports the signal ("Terminated") before the status.
	assert.True(t, strings.HasSuffix(string(res.Output), "status 143\n"), "the job is the session's child: %q", res.Output)
	stopped := ticks()
	time.Sleep(500 * time.Millisecond)
	assert.Equal(t, stopped, ticks(), "the job is gone")
}
