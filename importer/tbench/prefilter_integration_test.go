package tbench

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/images"
	"github.com/rbx-sandbox/rbx/prefilter"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// corpusVerdicts are the verdicts the shared corpus must get, as they should
// be: kept, unless the task itself is at fault, named by a substring that
// must appear in the rejection (a line that needs the network, a package
// Debian does not ship). A task missing here fails the test.
var corpusVerdicts = map[string]string{
	"evoeval-0":                         "",
	"evoeval-24":                        "",
	"tb-hello-world":                    "",
	"tb-parallelize-compute-squares":    "",
	"cpp-logistic-system-unit-testing":  "",
	"python-stocktrends-implementation": "",
	"polyglot_cpp_clock":                "",
	"polyglot_go_matrix":                "",
	"polyglot_python_zipper":            "",
	// package.json asks for @exercism/babel-preset-javascript and
	// @exercism/eslint-config-javascript, which Debian does not ship.
	"polyglot_javascript_grade-school": "@exercism/",
}

// corpusResult is one corpus task's prefilter verdict ("kept" or the
// rejection: the import's problems, or the prefilter reason, detail and
// failing output) and, once imported, the task and its reference.
type corpusResult struct {
	verdict    string
	task       *task.Task
	trajectory *trajectory.Trajectory
}

// prefilterTask imports dir, builds its image and prefilters it (R = 2).
func prefilterTask(ctx context.Context, t *testing.T, rt *docker.Runtime, b *images.Builder, rp *replayer.Replayer, dir string) corpusResult {
	t.Helper()
	c, err := Convert(dir, Options{})
	var off *OfflineError
	if errors.As(err, &off) {
		return corpusResult{verdict: "rejected at import: " + off.Error()}
	}
	require.NoError(t, err)
	w, err := c.Write(t.TempDir())
	require.NoError(t, err)
	if _, known := images.Lookup(c.BaseImage); known {
		_, err := b.Ensure(ctx, c.BaseImage)
		require.NoError(t, err)
	}
	if w.ContextDir != "" {
		if _, err := images.BuildTask(ctx, rt.Client(), w.ContextDir, w.Image, nil); err != nil {
			return corpusResult{verdict: "rejected: image build: " + err.Error()}
		}
	}
	tk, err := task.Load(w.TaskPath)
	require.NoError(t, err)
	trs, err := trajectory.Load(w.TrajectoryPath)
	require.NoError(t, err)
	res := corpusResult{verdict: "kept", task: tk, trajectory: trs[0]}
	items, err := prefilter.Discover(w.Dir)
	require.NoError(t, err)
	require.Len(t, items, 1)
	rep, err := prefilter.Run(ctx, rt, rp, items, prefilter.WithRepeats(2), prefilter.WithConcurrency(1))
	require.NoError(t, err)
	pr := rep.Results[0]
	if pr.Status == prefilter.StatusKept {
		return res
	}
	out := ""
	if pr.Failure != nil {
		out = pr.Failure.Output
	}
	res.verdict = fmt.Sprintf("rejected: %s: %s: failing %v\n%s", pr.Reason, pr.Detail, prefilter.FailingTests(out), out)
	return res
}
