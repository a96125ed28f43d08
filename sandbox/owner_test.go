package sandbox_test

import (
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// deadOwner returns a well-formed owner id of this host whose process has
// exited.
func deadOwner(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("true")
	require.NoError(t, cmd.Run())
	host, err := os.Hostname()
	require.NoError(t, err)
	return fmt.Sprintf("%s/%d/%d", host, cmd.Process.Pid, 12345)
}

func TestParseOwner(t *testing.T) {
	tests := []struct {
		in    string
		host  string
		pid   int
		start string
		ok    bool
	}{
		{"box_42_987", "box", 42, "987", true},
		{"a.b-c_1_0", "a.b-c", 1, "0", true},
		{"box/42/987", "box", 42, "987", true},
		{"a.b.c/1/0", "a.b.c", 1, "0", true},
		{"1234-abcd", "", 0, "", false},
		{"box/x/9", "", 0, "", false},
		{"box/42/", "", 0, "", false},
		{"/42/9", "", 0, "", false},
		{"", "", 0, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			host, pid, start, ok := sandbox.ParseOwner(tc.in)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.host, host)
			assert.Equal(t, tc.pid, pid)
			assert.Equal(t, tc.start, start)
		})
	}
}

func TestOwnerAlive(t *testing.T) {
	host, err := os.Hostname()
	require.NoError(t, err)
	_, pid, start, ok := sandbox.ParseOwner(sandbox.Owner)
	require.True(t, ok, sandbox.Owner)
	require.Equal(t, os.Getpid(), pid)
	tests := []struct {
		name            string
		owner           string
		alive, sameHost bool
	}{
		{"this process", sandbox.Owner, true, true},
		{"pid recycled: same pid, other start time", fmt.Sprintf("%s/%d/%s1", host, pid, start), false, true},
		{"exited process", deadOwner(t), false, true},
		{"other host", "elsewhere.example/1/1", true, false},
		{"unparsable (older rbx)", "1234-abcd", true, false},
		{"no owner", "", true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			alive, same := sandbox.OwnerAlive(tc.owner)
			assert.Equal(t, tc.alive, alive)
			assert.Equal(t, tc.sameHost, same)
		})
	}
}

func TestGoneError(t *testing.T) {
	var err error = fmt.Errorf("exec in x: %w", &sandbox.GoneError{ID: "c1", Cause: sandbox.CauseOOMKilled, ExitCode: 137})
	require.ErrorIs(t, err, sandbox.ErrSandboxGone)
	assert.NotErrorIs(t, err, sandbox.ErrUnavailable)
	var ge *sandbox.GoneError
	require.ErrorAs(t, err, &ge)
	assert.Equal(t, sandbox.CauseOOMKilled, ge.Cause)
	assert.Contains(t, err.Error(), "c1")
	assert.Contains(t, err.Error(), "oom_killed")

	err = &sandbox.GoneError{ID: "c2", Cause: sandbox.CauseEngineUnavailable, Detail: "connection refused"}
	assert.ErrorIs(t, err, sandbox.ErrSandboxGone)
	assert.ErrorIs(t, err, sandbox.ErrUnavailable)
	assert.Equal(t, "sandbox c2: sandbox gone: engine_unavailable: connection refused", err.Error())
}
