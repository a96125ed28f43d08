package tbench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/images"
	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/verifier"
)

// speedGate and speedTest mark the one corpus assertion that needs idle
// CPUs: on a loaded machine the parallel run cannot beat the sequential one,
// a fault of the task (a timing assertion), not of the replay.
const (
	speedGate = "Expected parallel to be faster"
	speedTest = "test_parallel_pbkdf2_correct_and_faster"
)

// TestIntegrationTerminalBenchCorpus imports every corpus task, builds its
// image offline, replays the reference and runs the verifier, which must
// pass; then a broken copy of each (solution truncated to nothing useful)
// must be rejected by the verifier.
func TestIntegrationTerminalBenchCorpus(t *testing.T) {
	corpus := needCorpus(t)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	if testing.Short() {
		t.Skip("-short: skipping a test that needs the Docker engine")
	}
	if err := docker.Available(ctx); err != nil {
		t.Skipf("no Docker engine answers (%v); skipping", err)
	}
	rt, err := docker.New()
	require.NoError(t, err)
	b, err := images.NewBuilder(rt.Client())
	require.NoError(t, err)
	_, err = b.Ensure(ctx, DefaultImage)
	require.NoError(t, err)

	dirs, err := filepath.Glob(filepath.Join(corpus, "*"))
	require.NoError(t, err)
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			if _, err := Convert(dir, Options{}); err != nil {
				t.Skipf("not importable (TestIntegrationCorpusPrefilter asserts its verdict): %v", err)
			}
			out := t.TempDir()
			_, tk, tr := importAndBuild(ctx, t, rt, dir, out)
			passed, output := replayVerify(ctx, t, rt, tk, tr)
			if !passed {
				t.Skipf("the reference does not pass (TestIntegrationCorpusPrefilter asserts its verdict): %s", lastLines(output, 5))
			}
			// The verdict is terminal-bench's parser over the script's output
			// (verify.sh); polyglot tasks print their own summary line, so no
			// pytest counts are required here.

			broken := *tr
			broken.Steps = []trajectory.Step{{Action: trajectory.KindShell, Command: "true"}}
			passed, output = replayVerify(ctx, t, rt, tk, &broken)
			assert.False(t, passed, "a solution that does nothing must be rejected:\n%s", output)
		})
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func importAndBuild(ctx context.Context, t *testing.T, rt *docker.Runtime, dir, out string) (*Written, *task.Task, *trajectory.Trajectory) {
	t.Helper()
	c, err := Convert(dir, Options{})
	require.NoError(t, err)
	w, err := c.Write(out)
	require.NoError(t, err)
	if _, known := images.Lookup(c.BaseImage); known {
		b, err := images.NewBuilder(rt.Client())
		require.NoError(t, err)
		_, err = b.Ensure(ctx, c.BaseImage) // toolchain images on demand, cached
		require.NoError(t, err)
	}
	if w.ContextDir != "" {
		_, err := images.BuildTask(ctx, rt.Client(), w.ContextDir, w.Image, nil)
		require.NoError(t, err)
	}
	tk, err := task.Load(w.TaskPath)
	require.NoError(t, err)
	trs, err := trajectory.Load(w.TrajectoryPath)
	require.NoError(t, err)
	return w, tk, trs[0]
}

func replayVerify(ctx context.Context, t *testing.T, rt *docker.Runtime, tk *task.Task, tr *trajectory.Trajectory) (bool, string) {
	t.Helper()
	sb, err := rt.Create(ctx, provision.Spec(tk))
	t.Cleanup(func() {
		if sb != nil {
			_ = sb.Remove(context.WithoutCancel(ctx))
		}
	})
	require.NoError(t, err)
	require.NoError(t, provision.Prepare(ctx, sb, tk))
	rp, err := replayer.New()
	require.NoError(t, err)
	_, err = rp.Replay(ctx, sb, tk, tr, tr.Len())
	require.NoError(t, err)
	res, err := verifier.Run(ctx, sb, tk)
	require.NoError(t, err)
	return res.Passed, res.Output
}

// TestIntegrationBrokenTestRejected checks the other kind of broken copy:
// the reference solution is kept but a test asserts something else.
func TestIntegrationBrokenTestRejected(t *testing.T) {
	corpus := needCorpus(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if testing.Short() {
		t.Skip("-short: skipping a test that needs the Docker engine")
	}
	if err := docker.Available(ctx); err != nil {
		t.Skipf("no Docker engine answers (%v); skipping", err)
	}
	rt, err := docker.New()
	require.NoError(t, err)
	src := filepath.Join(corpus, "tb-hello-world")
	dir := t.TempDir()
	require.NoError(t, copyTree(src, dir, nil))
	test := filepath.Join(dir, "tests", "test_outputs.py")
	data, err := os.ReadFile(test)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(test, []byte(strings.ReplaceAll(string(data), `"Hello, world!"`, `"Goodbye, world!"`)), 0o644))
	_, tk, tr := importAndBuild(ctx, t, rt, dir, t.TempDir())
	passed, output := replayVerify(ctx, t, rt, tk, tr)
	assert.False(t, passed, output)
	res, ok := ParsePytest(output)
	require.True(t, ok)
	assert.Equal(t, 1, res.Failed)
}
