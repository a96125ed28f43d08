package docker_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
)

// attempt is one thing a policy could try from inside its sandbox, run as
// root, and how it must have been contained.
type attempt struct {
	name string
	cmd  string
	// contained checks the step's exit code and output.
	contained func(t *testing.T, code int, out string)
	// mayEnd: the attempt may end the session or the sandbox, which must
	// then be reported (ErrSessionLost, a GoneError), never hang or pass
	// as a result.
	mayEnd bool
}

// failsWith: the attempt failed (non-zero exit), saying one of want.
func failsWith(want ...string) func(t *testing.T, code int, out string) {
	return func(t *testing.T, code int, out string) {
		t.Helper()
		assert.NotEqual(t, 0, code, "the attempt must fail: %q", out)
		for _, w := range want {
			if strings.Contains(strings.ToLower(out), strings.ToLower(w)) {
				return
			}
		}
		assert.Failf(t, "unexpected refusal", "output %q names none of %q", out, want)
	}
}

// hostileAttempts are the attempts of the hostile suite (docs/isolation.md).
// marker is a host path no sandbox may see.
func hostileAttempts(marker string) []attempt {
	return []attempt{
		{name: "read the host through /proc/1/root", cmd: "cat /proc/1/root" + marker + " || cat " + marker, contained: failsWith("no such file")},
		{name: "write /proc/sys", cmd: "echo 1 > /proc/sys/kernel/sysrq", contained: failsWith("read-only", "permission denied", "can't create", "no such file")},
		{name: "write the cgroup", cmd: "mkdir /sys/fs/cgroup/rbx-evil || echo 1 > /sys/fs/cgroup/pids.max", contained: failsWith("read-only", "permission denied", "can't create", "no such file")},
		{name: "mount", cmd: "mount -t tmpfs none /mnt", contained: failsWith("permission denied", "operation not permitted")},
		// runsc: gVisor's own user namespaces (never the host's), whose
		// setgroups file busybox's unshare does not find.
		{name: "a user namespace", cmd: "unshare -r id", contained: failsWith("operation not permitted", "invalid argument", "permission denied", "setgroups")},
		{name: "a raw socket", cmd: "ping -c 1 -W 1 127.0.0.1", contained: failsWith("permission denied", "operation not permitted", "socket")},
		{name: "a kernel module", cmd: "insmod /nonexistent.ko || echo x > /proc/sys/kernel/modprobe", contained: failsWith("read-only", "permission denied", "operation not permitted", "no such file", "can't create")},
		{name: "the hostname", cmd: "hostname rbx-evil", contained: failsWith("permission denied", "operation not permitted")},
		// busybox's date says it cannot, then prints the time and exits 0.
		{name: "the clock", cmd: "date -s 2000-01-01 >/dev/null; date +%Y", contained: func(t *testing.T, code int, out string) {
			t.Helper()
			assert.Contains(t, strings.ToLower(out), "not permitted")
			assert.NotContains(t, out, "\n2000\n", "the clock is unchanged")
		}},
		{name: "egress with network none", cmd: "wget -q -T 2 -O- http://1.1.1.1/ || nc -w 2 1.1.1.1 80 </dev/null", contained: failsWith("network is unreachable", "bad address", "timed out", "can't connect", "unreachable")},
		// runc: a signal PID 1 has no handler for is never delivered from
		// inside its namespace; gVisor delivers it, and the sandbox ends,
		// reported.
		{name: "SIGKILL PID 1", cmd: "kill -9 1; sleep 0.5; echo survived", mayEnd: true, contained: func(t *testing.T, code int, out string) {
			t.Helper()
			assert.Contains(t, out, "survived")
		}},
		{name: "SIGTERM PID 1", cmd: "kill -TERM 1; sleep 1; echo survived", mayEnd: true, contained: func(t *testing.T, code int, out string) {
			t.Helper()
			assert.Contains(t, out, "survived")
		}},
	}
}

// TestIntegrationHostile runs each attempt in a fresh sandbox, on runc and
// (where the engine has it) on runsc, and checks it was contained, that
// the sandbox still answers after it, and that the host's marker file is
// unchanged.
func TestIntegrationHostile(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "rbx-host-marker")
	require.NoError(t, os.WriteFile(marker, []byte("host"), 0o600))
	runtimes := map[string]func(testing.TB, ...string) *docker.Runtime{"runc": dockertest.Runtime, "runsc": dockertest.RunscRuntime}
	for name, newRT := range runtimes {
		t.Run(name, func(t *testing.T) {
			rt := newRT(t)
			ensureImage(t, rt.Client())
			for _, a := range hostileAttempts(marker) {
				t.Run(a.name, func(t *testing.T) {
					sb := newSandbox(t, rt, sandbox.Spec{Image: testImage, Mode: sandbox.ModeSession})
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					defer cancel()
					res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: a.cmd + " 2>&1"})
					if a.mayEnd && (errors.Is(err, sandbox.ErrSessionLost) || errors.Is(err, sandbox.ErrSandboxGone)) {
						t.Logf("ended, and reported: %v", err)
						return
					}
					require.NoError(t, err)
					a.contained(t, res.ExitCode, string(res.Output))
					res, err = sb.Exec(ctx, sandbox.ExecRequest{Command: "echo alive"})
					require.NoError(t, err, "the sandbox answers after the attempt")
					assert.Equal(t, "alive\n", string(res.Output))
				})
			}
			data, err := os.ReadFile(marker)
			require.NoError(t, err)
			assert.Equal(t, "host", string(data), "the host's file is unchanged")
		})
	}
}
