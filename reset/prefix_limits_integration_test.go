package reset_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/prefix"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/verifier"
)

func shellSteps(cmds ...string) []trajectory.Step {
	steps := make([]trajectory.Step, len(cmds))
	for i, c := range cmds {
		steps[i] = trajectory.Step{Action: trajectory.KindShell, Command: c}
	}
	return steps
}

// TestIntegrationPrefixCacheBackgroundProcess: a step that leaves a
// process running ends the reusable prefix (found by probing, logged with
// the reason); resets past it restore only the steps before it.
func TestIntegrationPrefixCacheBackgroundProcess(t *testing.T) {
	rt := dockerRuntime(t)
	rp, err := replayer.New()
	require.NoError(t, err)
	buf := &logBuffer{}
	r, c := cachedResetter(t, rt, rp, buf)
	tk := &task.Task{ID: "prefix-bg", Image: busybox, Shell: "session", Verify: task.Verify{Command: "true"}}
	traj := &trajectory.Trajectory{ID: "prefix-bg", Task: "prefix-bg",
		Steps: shellSteps("echo a > f", "sleep 300 >/dev/null 2>&1 &", "echo b >> f", "cat f")}
	ctx := context.Background()
	var uses []reset.CacheUse
	for i := 0; i < 3; i++ {
		ep, err := r.Reset(ctx, tk, traj, 3)
		require.NoError(t, err)
		uses = append(uses, ep.Cache)
		assert.LessOrEqual(t, ep.Cached, 1, "reset %d: nothing after the background process is restored", i)
		if ep.Cache == reset.CacheHit {
			assert.Equal(t, 1, ep.Cached)
		}
		res, err := ep.Sandbox.Exec(ctx, sandbox.ExecRequest{Command: "cat f; ps | grep -c '[s]leep 300'"})
		require.NoError(t, err)
		assert.Equal(t, "a\nb\n1\n", string(res.Output), "reset %d: the state, with the process replayed live", i)
		r.Release(ep.Sandbox)
	}
	// The first build finds the process after step 1 and fails (its reset
	// is all live: bypass); the cache remembers the limit, so the second
	// builds the entry at j = 1 and the third hits it.
	assert.Equal(t, []reset.CacheUse{reset.CacheBypass, reset.CacheBuilt, reset.CacheHit}, uses)
	assert.Equal(t, 1, strings.Count(buf.String(), "a background process is still running after it"), "logged once: %s", buf)
	// The process is named as the probe saw it: "sleep"; the shell that
	// forked it when the probe came before its exec; or "exe" when it came
	// during it (busybox runs an applet by re-executing /proc/self/exe and
	// names the process after the applet once it has started).
	assert.Regexp(t, `pid \d+ \\"(sleep|sh|exe)\\"`, buf.String())
	assert.Equal(t, int64(1), c.Stats().Built, "only the entry at j = 1")
}

// writeTask writes a task whose workspace holds data.txt with content.
func writeTask(t *testing.T, id, img, content string) *task.Task {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "workspace"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "workspace", "data.txt"), []byte(content), 0o644))
	yaml := "id: " + id + "\nimage: " + img + "\nworkdir: /workspace\nshell: session\nfiles:\n  workspace/: /workspace/\nverify:\n  command: \"true\"\n"
	p := filepath.Join(dir, "task.yaml")
	require.NoError(t, os.WriteFile(p, []byte(yaml), 0o644))
	tk, err := task.Load(p)
	require.NoError(t, err)
	return tk
}

// TestIntegrationPrefixCacheNotShared: an entry is never used for another
// task (same trajectory, other files) nor another image under the same tag.
func TestIntegrationPrefixCacheNotShared(t *testing.T) {
	rt := dockerRuntime(t)
	ctx := context.Background()
	cli := rt.Client()
	const tag = "rbx-test/prefix-shared:cur"
	require.NoError(t, cli.ImageTag(ctx, busybox, tag))
	t.Cleanup(func() { _, _ = cli.ImageRemove(context.Background(), tag, image.RemoveOptions{Force: true}) })
	rp, err := replayer.New()
	require.NoError(t, err)
	c, err := prefix.New()
	require.NoError(t, err)
	// Pool size 0: every sandbox is created at its reset, from the tag's
	// current image.
	r, err := reset.New(rt, rp, reset.WithPrefixCache(c), reset.WithPoolOptions(pool.WithSize(0)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	traj := &trajectory.Trajectory{ID: "shared", Task: "shared", Steps: shellSteps("cp data.txt out", "echo x >> out", "cat out")}
	state := func(tk *task.Task, want reset.CacheUse) string {
		t.Helper()
		ep, err := r.Reset(ctx, tk, traj, 2)
		require.NoError(t, err)
		defer r.Release(ep.Sandbox)
		assert.Equal(t, want, ep.Cache, tk.ID)
		res, err := ep.Sandbox.Exec(ctx, sandbox.ExecRequest{Command: "cat out; cat /marker 2>/dev/null; true"})
		require.NoError(t, err)
		return string(res.Output)
	}
	a, b := writeTask(t, "shared-a", tag, "A\n"), writeTask(t, "shared-b", tag, "B\n")
	assert.Equal(t, "A\nx\n", state(a, reset.CacheBuilt))
	assert.Equal(t, "A\nx\n", state(a, reset.CacheHit))
	assert.Equal(t, "B\nx\n", state(b, reset.CacheBuilt), "another task's files: its own entry")
	assert.Equal(t, "B\nx\n", state(b, reset.CacheHit))

	// Another image under the same tag: a container of busybox with a
	// marker file, committed and tagged over it.
	sb, err := rt.Create(ctx, sandbox.Spec{Image: busybox, Mode: sandbox.ModeExec, Labels: map[string]string{sandbox.LabelTask: "prefix-shared"}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = sb.Remove(context.Background()) })
	res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "echo marked > /marker"})
	require.NoError(t, err)
	require.Zero(t, res.ExitCode)
	ci, err := cli.ContainerCommit(ctx, sb.ID(), container.CommitOptions{Reference: tag,
		Config: &container.Config{Labels: map[string]string{"rbx.test": "prefix-shared"}}})
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = cli.ImageRemove(context.Background(), ci.ID, image.RemoveOptions{Force: true}) })
	got := state(a, reset.CacheBuilt)
	assert.Equal(t, "A\nx\nmarked\n", got, "the new image's own state, built anew")
	assert.Equal(t, "A\nx\nmarked\n", state(a, reset.CacheHit))
	assert.Equal(t, int64(3), c.Stats().Built, "one entry per task and image")
}

// TestIntegrationPrefixCacheStaging: after a reset at k, sandboxes are
// restored ahead of time; a group at k takes them and each passes the
// verifier after the reference suffix.
func TestIntegrationPrefixCacheStaging(t *testing.T) {
	var ex example
	for _, e := range loadExamples(t) {
		if e.name == "run-sh-path" {
			ex = e
		}
	}
	rt := dockerRuntime(t)
	rp, err := replayer.New()
	require.NoError(t, err)
	c, err := prefix.New()
	require.NoError(t, err)
	r, err := reset.New(rt, rp, reset.WithPrefixCache(c), reset.WithStaging(3), reset.WithPoolOptions(pool.WithSize(3)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	ctx := context.Background()
	const k = 9
	ep, err := r.Reset(ctx, ex.task, ex.traj, k)
	require.NoError(t, err)
	assert.Equal(t, reset.CacheBuilt, ep.Cache)
	r.Release(ep.Sandbox)
	require.Eventually(t, func() bool { return r.Staged() == 3 }, 60*time.Second, 20*time.Millisecond)
	for i := 0; i < 3; i++ {
		ep, err := r.Reset(ctx, ex.task, ex.traj, k)
		require.NoError(t, err)
		assert.True(t, ep.Staged, "reset %d", i)
		assert.Equal(t, k, ep.Cached)
		assert.Zero(t, ep.Timings.Apply, "restored before the reset")
		_, err = ep.Run.To(ctx, ex.traj.Len())
		require.NoError(t, err)
		v, err := verifier.Run(ctx, ep.Sandbox, ex.task)
		require.NoError(t, err)
		assert.True(t, v.Passed, "reset %d: %s", i, v.Output)
		r.Release(ep.Sandbox)
	}
	other, err := r.Reset(ctx, ex.task, ex.traj, 5)
	require.NoError(t, err)
	assert.False(t, other.Staged, "another checkpoint is not served from the stage")
	r.Release(other.Sandbox)
}

// TestIntegrationPrefixCacheExecMode: a task without a session shell
// caches its files (deletions included) and no shell state.
func TestIntegrationPrefixCacheExecMode(t *testing.T) {
	rt := dockerRuntime(t)
	rp, err := replayer.New()
	require.NoError(t, err)
	r, c := cachedResetter(t, rt, rp, &logBuffer{})
	tk := &task.Task{ID: "prefix-exec", Image: busybox, Shell: "exec", Verify: task.Verify{Command: "true"}}
	traj := &trajectory.Trajectory{ID: "prefix-exec", Task: "prefix-exec",
		Steps: shellSteps("mkdir -p d/e && echo a > d/e/f && chmod 700 d", "ln -s d/e/f link && rm -rf /etc/motd /root", "cat link")}
	ctx := context.Background()
	for i, want := range []reset.CacheUse{reset.CacheBuilt, reset.CacheHit} {
		ep, err := r.Reset(ctx, tk, traj, 2)
		require.NoError(t, err)
		assert.Equal(t, want, ep.Cache, "reset %d", i)
		res, err := ep.Sandbox.Exec(ctx, sandbox.ExecRequest{Command: "cat link; stat -c '%a %F' d link; ls -d /root /etc/motd 2>&1 | wc -l"})
		require.NoError(t, err)
		assert.Equal(t, "a\n700 directory\n777 symbolic link\n2\n", string(res.Output), "reset %d", i)
		r.Release(ep.Sandbox)
	}
	assert.Equal(t, int64(1), c.Stats().Hits)
}

// TestIntegrationPrefixCacheNonRoot: a task run as a user who cannot read
// the whole filesystem is not cached (the scan reports it, logged) and
// its resets replay live, correctly.
func TestIntegrationPrefixCacheNonRoot(t *testing.T) {
	rt := dockerRuntime(t)
	rp, err := replayer.New()
	require.NoError(t, err)
	buf := &logBuffer{}
	r, c := cachedResetter(t, rt, rp, buf)
	tk := &task.Task{ID: "prefix-user", Image: busybox, Shell: "session", User: "nobody", Verify: task.Verify{Command: "true"}}
	traj := &trajectory.Trajectory{ID: "prefix-user", Task: "prefix-user", Steps: shellSteps("echo a > f", "echo b >> f", "cat f")}
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		ep, err := r.Reset(ctx, tk, traj, 2)
		require.NoError(t, err)
		assert.Equal(t, reset.CacheBypass, ep.Cache, "reset %d", i)
		res, err := ep.Sandbox.Exec(ctx, sandbox.ExecRequest{Command: "cat f"})
		require.NoError(t, err)
		assert.Equal(t, "a\nb\n", string(res.Output))
		r.Release(ep.Sandbox)
	}
	assert.Contains(t, buf.String(), "Permission denied")
	assert.Equal(t, int64(1), c.Stats().BuildFailed, "found out once, remembered")
}
