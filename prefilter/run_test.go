package prefilter_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/prefilter"
	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox/local"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// localRun runs prefilter on dir with the local runtime (no engine needed).
func localRun(t *testing.T, ctx context.Context, dir string, opts ...prefilter.Option) ([]*prefilter.Item, *prefilter.Report, error) {
	t.Helper()
	rt, err := local.New()
	require.NoError(t, err)
	rp, err := replayer.New()
	require.NoError(t, err)
	items, err := prefilter.Discover(dir)
	require.NoError(t, err)
	noImages := prefilter.WithImageCheck(func(context.Context, *task.Task) error { return nil })
	rep, err := prefilter.Run(ctx, rt, rp, items, append([]prefilter.Option{noImages, prefilter.WithRepeats(2)}, opts...)...)
	return items, rep, err
}

func smallDir(t *testing.T) string {
	dir := t.TempDir()
	write(t, dir, "task.yaml", "id: app\nimage: rbx/busybox:latest\nverify: {command: 'test -f done'}\n")
	write(t, dir, "ok.json", `{"id": "ok", "task": "task.yaml", "steps": [{"action": "shell", "command": "touch done", "observation": {"exit_code": 0}}]}`)
	write(t, dir, "bad.json", `{"id": "bad", "task": "task.yaml", "steps": [{"action": "shell", "command": "touch nope", "observation": {"exit_code": 0}}]}`)
	return dir
}

func TestRunResume(t *testing.T) {
	dir := smallDir(t)
	ctx := context.Background()
	_, first, err := localRun(t, ctx, dir)
	require.NoError(t, err)
	require.Equal(t, []prefilter.Status{prefilter.StatusRejected, prefilter.StatusKept}, statuses(first))
	assert.Equal(t, reason.VerifyFailed, first.Results[0].Reason)

	reportPath := filepath.Join(t.TempDir(), "report.json")
	require.NoError(t, prefilter.WriteReport(reportPath, first))
	prev, err := prefilter.ReadReport(reportPath)
	require.NoError(t, err)

	ran := 0
	_, second, err := localRun(t, ctx, dir, prefilter.WithPrevious(prev), prefilter.WithProgress(func(p prefilter.Progress) {
		if p.Decided == nil {
			ran++
		}
	}))
	require.NoError(t, err)
	assert.Zero(t, ran, "every trajectory was decided before: nothing runs")
	assert.Equal(t, 2, second.Summary.Resumed)
	assert.Equal(t, statuses(first), statuses(second))

	// An edited trajectory has a new hash and is judged again; an
	// infra verdict is never taken over.
	write(t, dir, "ok.json", `{"id": "ok", "task": "task.yaml", "steps": [{"action": "noop"}, {"action": "shell", "command": "touch done"}]}`)
	prev.Results[0].Reason = reason.Infra
	_, third, err := localRun(t, ctx, dir, prefilter.WithPrevious(prev))
	require.NoError(t, err)
	assert.Equal(t, statuses(first), statuses(third))
	assert.Zero(t, third.Summary.Resumed)
	assert.Equal(t, 2, third.Results[1].T)
}

func TestRunKeptSetIsValidInput(t *testing.T) {
	items, rep, err := localRun(t, context.Background(), smallDir(t))
	require.NoError(t, err)
	out := t.TempDir()
	written, err := prefilter.WriteKept(out, items, rep)
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(out, "app", "ok.json")}, written)
	_, again, err := localRun(t, context.Background(), out)
	require.NoError(t, err)
	assert.Equal(t, []prefilter.Status{prefilter.StatusKept}, statuses(again))
	kept, err := trajectory.Load(written[0])
	require.NoError(t, err)
	o := kept[0].Steps[0].Observation
	require.NotNil(t, o)
	assert.True(t, o.Pinned, "the kept trajectory carries its verified runs' observations")
	assert.Equal(t, replayer.Digest(replayer.CompareNormalized, ""), o.OutputSHA256)

	// Pins are stable: the kept set of the kept set is the same file.
	out2 := t.TempDir()
	again2Items, again2, err := localRun(t, context.Background(), out)
	require.NoError(t, err)
	written2, err := prefilter.WriteKept(out2, again2Items, again2)
	require.NoError(t, err)
	require.Len(t, written2, 1)
	a, err := os.ReadFile(written[0])
	require.NoError(t, err)
	b, err := os.ReadFile(written2[0])
	require.NoError(t, err)
	assert.Equal(t, string(a), string(b))
}

func TestRunCancelled(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "task.yaml", "id: slow\nimage: rbx/busybox:latest\nverify: {command: 'true'}\n")
	write(t, dir, "slow.json", `{"id": "slow", "task": "task.yaml", "steps": [{"action": "shell", "command": "sleep 20"}]}`)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, rep, err := localRun(t, ctx, dir)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 10*time.Second, "in-flight repeats are cancelled")
	require.NotNil(t, rep, "a partial report is returned")
	assert.True(t, rep.Interrupted)
	assert.Equal(t, []prefilter.Status{prefilter.StatusInterrupted}, statuses(rep))
	assert.Equal(t, 1, rep.Summary.Interrupted)
	assert.Zero(t, rep.Summary.Rejected, "a cancelled repeat is not a rejection")
	assert.Equal(t, reason.Interrupted, rep.Results[0].Reason)
	assert.False(t, rep.Results[0].Decided(), "--resume judges it again")
}

func statuses(rep *prefilter.Report) []prefilter.Status {
	var out []prefilter.Status
	for _, r := range rep.Results {
		out = append(out, r.Status)
	}
	return out
}
