package local_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/local"
	"github.com/rbx-sandbox/rbx/sandbox/sandboxtest"
)

// newRuntime returns a runtime whose base directory is private to the test.
func newRuntime(t *testing.T, base string, opts ...local.Option) *local.Runtime {
	t.Helper()
	require.NoError(t, local.Available(context.Background()), "local backend unavailable")
	rt, err := local.New(append([]local.Option{local.WithBaseDir(base)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close() })
	return rt
}

// create makes a sandbox removed at the end of the test.
func create(t *testing.T, rt sandbox.Runtime, spec sandbox.Spec) sandbox.Sandbox {
	t.Helper()
	sb, err := rt.Create(context.Background(), spec)
	t.Cleanup(func() {
		if sb != nil {
			assert.NoError(t, sb.Remove(context.Background()))
		}
	})
	require.NoError(t, err)
	return sb
}

func exec(t *testing.T, sb sandbox.Sandbox, cmd string) sandbox.ExecResult {
	t.Helper()
	res, err := sb.Exec(context.Background(), sandbox.ExecRequest{Command: cmd, Timeout: 10 * time.Second})
	require.NoError(t, err, cmd)
	require.Equal(t, 0, res.ExitCode, "%s: %s", cmd, res.Output)
	return res
}

func TestConformance(t *testing.T) {
	base := t.TempDir()
	rt := newRuntime(t, base)
	sandboxtest.Run(t, rt, sandbox.Spec{})
	entries, err := os.ReadDir(base)
	require.NoError(t, err)
	assert.Empty(t, entries, "sandbox directories left behind")
}

func TestPathEscapeRefused(t *testing.T) {
	ctx := context.Background()
	sb := create(t, newRuntime(t, t.TempDir()), sandbox.Spec{})
	exec(t, sb, "ln -s /etc etc-link && ln -s ../../.. up-link && mkdir -p inner && ln -s ../workspace/inner in-link")
	for _, p := range []string{
		"../../etc/passwd",
		"/etc/../../x",
		"/../x",
		"etc-link/rbx-escape-test",
		"etc-link/new/dir/file",
		"up-link/rbx-escape-test",
	} {
		err := sb.WriteFile(ctx, p, []byte("x"), 0o644)
		assert.ErrorIs(t, err, sandbox.ErrPathEscape, "write %s", p)
		_, err = sb.ReadFile(ctx, p)
		assert.ErrorIs(t, err, sandbox.ErrPathEscape, "read %s", p)
	}
	_, err := os.Stat("/etc/rbx-escape-test")
	assert.ErrorIs(t, err, os.ErrNotExist)

	// A link that stays inside the root is followed.
	require.NoError(t, sb.WriteFile(ctx, "in-link/through.txt", []byte("ok"), 0o644))
	got, err := sb.ReadFile(ctx, "inner/through.txt")
	require.NoError(t, err)
	assert.Equal(t, "ok", string(got))
}

func TestWorkdirMapping(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	sb := create(t, newRuntime(t, base), sandbox.Spec{Workdir: "/srv/app", Mode: sandbox.ModeExec})
	root := sb.(*local.Sandbox).Root()
	assert.True(t, strings.HasPrefix(root, base+string(filepath.Separator)), root)

	res := exec(t, sb, `pwd; echo "$RBX_ROOT"; echo "$HOME"`)
	assert.Equal(t, filepath.Join(root, "srv/app")+"\n"+root+"\n"+filepath.Join(root, "root")+"\n", string(res.Output))

	require.NoError(t, sb.WriteFile(ctx, "/etc/app.conf", []byte("conf"), 0o600))
	res = exec(t, sb, `cat "$RBX_ROOT/etc/app.conf"`)
	assert.Equal(t, "conf", string(res.Output))
	fi, err := os.Stat(filepath.Join(root, "etc/app.conf"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	res, err = sb.Exec(ctx, sandbox.ExecRequest{Command: "pwd", Cwd: "/etc", Timeout: 10 * time.Second})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "etc")+"\n", string(res.Output))
}

func TestInvalidWorkdir(t *testing.T) {
	rt := newRuntime(t, t.TempDir())
	for _, wd := range []string{"relative", "/../outside"} {
		sb, err := rt.Create(context.Background(), sandbox.Spec{Workdir: wd})
		if sb != nil {
			t.Cleanup(func() { _ = sb.Remove(context.Background()) })
		}
		assert.ErrorIs(t, err, sandbox.ErrInvalidSpec, wd)
	}
}

// startTime is field 22 of /proc/<pid>/stat, "" when pid is gone.
func startTime(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	if f := strings.Fields(rest); len(f) > 19 {
		return f[19]
	}
	return ""
}

// alive reports whether pid runs (a zombie counts as gone).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z") && syscall.Kill(pid, 0) == nil
}

// sameAlive reports whether the process that had start time st still runs:
// pids wrap quickly here (pid_max 32768) while a test suite forks a lot,
// so a recycled pid must not count as the old process.
func sameAlive(pid int, st string) bool { return alive(pid) && startTime(pid) == st }

func TestRemoveKillsBackgroundJobs(t *testing.T) {
	for _, mode := range []sandbox.Mode{sandbox.ModeSession, sandbox.ModeExec} {
		t.Run(string(mode), func(t *testing.T) {
			sb := create(t, newRuntime(t, t.TempDir()), sandbox.Spec{Mode: mode})
			// setsid escapes the process group: only the RBX_ROOT scan finds it.
			res := exec(t, sb, "sleep 300 >/dev/null 2>&1 & echo $!; setsid sleep 301 >/dev/null 2>&1 & echo $!")
			var pids []int
			for _, f := range strings.Fields(string(res.Output)) {
				pid, err := strconv.Atoi(f)
				require.NoError(t, err)
				pids = append(pids, pid)
			}
			require.Len(t, pids, 2)
			starts := map[int]string{}
			for _, pid := range pids {
				require.True(t, alive(pid), "pid %d before Remove", pid)
				starts[pid] = startTime(pid)
			}
			require.NoError(t, sb.Remove(context.Background()))
			for _, pid := range pids {
				assert.Eventually(t, func() bool { return !sameAlive(pid, starts[pid]) }, 3*time.Second, 20*time.Millisecond, "pid %d after Remove", pid)
			}
		})
	}
}

func TestTwoRuntimesShareBaseDir(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	rtA, rtB := newRuntime(t, base), newRuntime(t, base)
	label := map[string]string{"rbx.test": t.Name()}
	sb := create(t, rtA, sandbox.Spec{Labels: label, Env: map[string]string{"FROM_SPEC": "yes"}, Workdir: "/w"})
	exec(t, sb, "echo from-a > a.txt; sleep 300 >/dev/null 2>&1 & echo $! > bg.pid")

	infos, err := rtB.List(ctx, label)
	require.NoError(t, err)
	require.Len(t, infos, 1)
	assert.Equal(t, sb.ID(), infos[0].ID)

	opened, err := rtB.Open(ctx, sb.ID())
	require.NoError(t, err)
	res := exec(t, opened, `basename "$PWD"; cat a.txt; echo "$FROM_SPEC"`)
	assert.Equal(t, "w\nfrom-a\nyes\n", string(res.Output))

	pidText, err := opened.ReadFile(ctx, "bg.pid")
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(pidText)))
	require.NoError(t, err)

	st := startTime(pid)
	require.NoError(t, rtB.Remove(ctx, sb.ID()))
	assert.Eventually(t, func() bool { return !sameAlive(pid, st) }, 3*time.Second, 20*time.Millisecond, "background job of runtime A")
	infos, err = rtA.List(ctx, label)
	require.NoError(t, err)
	assert.Empty(t, infos)
	_, err = sb.Exec(ctx, sandbox.ExecRequest{Command: "true"})
	assert.ErrorIs(t, err, sandbox.ErrSandboxGone)
	var gone *sandbox.GoneError
	if assert.ErrorAs(t, err, &gone) {
		assert.Equal(t, sandbox.CauseRemoved, gone.Cause)
	}
	assert.ErrorIs(t, rtA.Remove(ctx, sb.ID()), sandbox.ErrNotFound)
}

func TestAvailable(t *testing.T) {
	require.NoError(t, local.Available(context.Background()))
	rt, err := local.New()
	require.NoError(t, err)
	assert.Equal(t, "local", rt.Name())
	_, err = local.New(local.WithBaseDir(""))
	assert.Error(t, err)
}
