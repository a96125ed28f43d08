package docker_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// failsWith: the attempt failed (non-zero exit), saying one of want.
func failsWith(want ...string) func(t *testing.T, rt string, res sandbox.ExecResult) {
	return func(t *testing.T, _ string, res sandbox.ExecResult) {
		t.Helper()
		out := string(res.Output)
		assert.NotEqual(t, 0, res.ExitCode, "the attempt must fail: %q", out)
		for _, w := range want {
			if strings.Contains(strings.ToLower(out), strings.ToLower(w)) {
				return
			}
		}
		assert.Failf(t, "unexpected refusal", "output %q names none of %q", out, want)
	}
}

// says: the output holds want (whatever the status).
func says(want string) func(t *testing.T, rt string, res sandbox.ExecResult) {
	return func(t *testing.T, _ string, res sandbox.ExecResult) {
		t.Helper()
		assert.Contains(t, string(res.Output), want)
	}
}

const mib = 1 << 20

// hostileAttempts are the attempts of the hostile suite (docs/isolation.md).
// marker is a host path no sandbox may see; host is the address (host:port)
// where the host listens on the engine's bridge.
func hostileAttempts(marker, host string) []attempt {
	ip, port, _ := strings.Cut(host, ":")
	return []attempt{
		{name: "read the host through /proc/1/root", cmd: "cat /proc/1/root" + marker + " || cat " + marker, contained: failsWith("no such file")},
		// core_pattern: a pipe there runs a program as the host's root. The
		// current value is written back (harmless if it were not contained).
		// gVisor's /proc/sys is its own and has no core_pattern.
		{name: "write /proc/sys", cmd: "cat /proc/sys/kernel/core_pattern > /tmp/c && cat /tmp/c > /proc/sys/kernel/core_pattern",
			contained: func(t *testing.T, rt string, res sandbox.ExecResult) {
				t.Helper()
				if rt == "runsc" {
					failsWith("no such file")(t, rt, res)
					return
				}
				failsWith("read-only", "permission denied")(t, rt, res)
			}},
		{name: "write the cgroup", cmd: "mkdir /sys/fs/cgroup/pids/rbx-evil || mkdir /sys/fs/cgroup/rbx-evil", contained: failsWith("read-only", "permission denied", "can't create", "no such file")},
		{name: "mount", cmd: "mkdir -p /mnt; mount -t tmpfs none /mnt", contained: failsWith("permission denied", "operation not permitted")},
		// runsc: gVisor's own user namespaces (never the host's), whose
		// setgroups file busybox's unshare does not find.
		{name: "a user namespace", cmd: "unshare -r id", contained: failsWith("operation not permitted", "invalid argument", "permission denied", "setgroups")},
		{name: "a raw socket", cmd: "ping -c 1 -W 1 127.0.0.1", contained: failsWith("permission denied", "operation not permitted", "socket")},
		// init_module is refused before the file is looked at (without
		// CAP_SYS_MODULE); with it, this kernel says it has no modules.
		{name: "a kernel module", cmd: "insmod /bin/busybox", contained: failsWith("operation not permitted")},
		{name: "the hostname", cmd: "hostname rbx-evil", contained: failsWith("permission denied", "operation not permitted")},
		// busybox's date says it cannot, then prints the time and exits 0.
		{name: "the clock", cmd: "date -s 2000-01-01 >/dev/null; date +%Y", contained: func(t *testing.T, _ string, res sandbox.ExecResult) {
			t.Helper()
			assert.Contains(t, strings.ToLower(string(res.Output)), "not permitted")
			assert.NotContains(t, string(res.Output), "\n2000\n", "the clock is unchanged")
		}},
		{name: "egress with network none", cmd: "wget -q -T 2 -O- http://" + host + "/ || nc -w 2 " + ip + " " + port + " </dev/null", contained: failsWith("network is unreachable", "bad address", "timed out", "can't connect", "unreachable")},
		// runc: a signal PID 1 has no handler for is never delivered from
		// inside its namespace; gVisor delivers it, and the sandbox ends,
		// reported.
		{name: "SIGKILL PID 1", cmd: "kill -9 1; sleep 0.5; echo survived", mayEnd: true, contained: says("survived")},
		{name: "SIGTERM PID 1", cmd: "kill -TERM 1; sleep 1; echo survived", mayEnd: true, contained: says("survived")},
		forkBomb(),
		{name: "disk fill (read-only root: the tmpfs bound)", cmd: "dd if=/dev/zero of=/tmp/fill bs=1M count=64",
			spec:      func(s *sandbox.Spec) { s.ReadOnlyRoot, s.Limits.DiskBytes = true, 16*mib },
			contained: failsWith("no space left")},
		// SIGXFSZ kills dd (exit 153): "File size limit exceeded".
		{name: "one file past file_size", cmd: "dd if=/dev/zero of=/big bs=1M count=64; echo status=$?; ls -l /big",
			spec: func(s *sandbox.Spec) { s.Limits.FileSizeBytes = 8 * mib },
			contained: func(t *testing.T, _ string, res sandbox.ExecResult) {
				t.Helper()
				out := string(res.Output)
				assert.Contains(t, out, "status=153", "dd killed by SIGXFSZ")
				assert.Regexp(t, `\s8388608\s`, out, "the file stopped at file_size")
			}},
		// A loop of shell builtins (no fork), bounded so that a missing
		// inode bound shows as a count, not a hang.
		{name: "inodes in /tmp", cmd: `i=0; while [ $i -lt 100000 ] && true > /tmp/i$i; do i=$((i+1)); done; echo made=$i`,
			spec: func(s *sandbox.Spec) { s.ReadOnlyRoot, s.Limits.DiskBytes = true, 1*mib },
			contained: func(t *testing.T, _ string, res sandbox.ExecResult) {
				t.Helper()
				out := string(res.Output)
				assert.Contains(t, strings.ToLower(out), "no space left")
				m := regexp.MustCompile(`made=(\d+)`).FindStringSubmatch(out)
				if assert.NotNil(t, m, out) {
					n, _ := strconv.Atoi(m[1])
					assert.Less(t, n, 100000, "the tmpfs's inodes are bounded")
				}
			}},
		{name: "huge output", cmd: "yes 0123456789abcdef | head -c 200000000",
			contained: func(t *testing.T, _ string, res sandbox.ExecResult) {
				t.Helper()
				assert.True(t, res.Truncated)
				assert.LessOrEqual(t, len(res.Output), sandbox.DefaultOutputCap)
				assert.Equal(t, int64(200000000), res.OutputBytes, "every byte counted, not kept")
			}},
		// no-new-privileges: a setuid binary another episode or the image
		// left does not raise an unprivileged user.
		{name: "a setuid binary run by an unprivileged user", cmd: "id -u; /bin/suid id",
			spec: func(s *sandbox.Spec) { s.Image, s.User = setuidImage, "65534:65534" },
			contained: func(t *testing.T, _ string, res sandbox.ExecResult) {
				t.Helper()
				assert.Equal(t, "65534\n65534\n", string(res.Output), "no uid 0 through the setuid bit")
			}},
		peekShell(),
	}
}

// forkBomb: the pids limit stops it in its sandbox (runc); the neighbour
// check runs while it still runs. Under gVisor the task's processes are
// the Sentry's goroutines, which the cgroup does not count: it is the
// memory limit that ends the sandbox, reported, or the bomb is still
// running, bounded by the cgroup's CPU share.
func forkBomb() attempt {
	return attempt{name: "fork bomb", mayEnd: true,
		cmd: `mkfifo /tmp/w; (exec >/dev/null 2>&1; b() { b | b & }; b); read -t 5 x <>/tmp/w; read n </sys/fs/cgroup/pids/pids.current || read n </sys/fs/cgroup/pids.current; echo pids=$n`,
		contained: func(t *testing.T, rt string, res sandbox.ExecResult) {
			t.Helper()
			out := string(res.Output)
			if rt != "runc" {
				return
			}
			m := regexp.MustCompile(`pids=(\d+)`).FindStringSubmatch(out)
			if assert.NotNil(t, m, "the cgroup's count: %q", lastLines(out, 3)) {
				n, _ := strconv.Atoi(m[1])
				assert.LessOrEqual(t, n, sandbox.DefaultPids)
			}
		}}
}

// peekShell is the residual of docs/sessions.md: a step that attacks the
// session shell running it. On runc it can (ptrace, its memory, its input:
// same user, dumpable, no Yama), and so could forge its own status; gVisor
// refuses ptrace and /proc/<pid>/mem of a process that is not the
// caller's descendant (its ptrace scope is Yama's 1), but not the shell's
// input. Either way what it reaches is its own session in its own
// sandbox: the host's processes are not in its PID namespace, and the
// verifier's exec-mode status does not go through the shell.
func peekShell() attempt {
	want := map[string]string{
		"runc":  "ptrace: ok\nmem: ok\nfd0: ok\n",
		"runsc": "ptrace: operation not permitted\nmem: open /proc/3/mem: permission denied\nfd0: ok\n",
	}
	return attempt{name: "ptrace, memory and fd 0 of the session shell",
		peek: true,
		cmd:  "/tmp/peek | sed 's,/proc/[0-9]*/,/proc/3/,'; ls /proc | grep -c '^[0-9]'",
		contained: func(t *testing.T, rt string, res sandbox.ExecResult) {
			t.Helper()
			out := string(res.Output)
			assert.Equal(t, want[rt], firstLines(out, 3), "the documented residual (docs/sessions.md)")
			n, err := strconv.Atoi(strings.TrimSpace(lastLines(out, 1)))
			if assert.NoError(t, err, out) {
				assert.Less(t, n, 20, "only the sandbox's own processes are visible")
			}
		}}
}

// firstLines is the first n lines of s, each with its newline.
func firstLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	return strings.Join(lines[:min(n, len(lines))], "")
}

// lastLines is the last n non-empty lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
