package tbench

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/images"
	"github.com/rbx-sandbox/rbx/prefilter"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
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

// TestIntegrationCorpusPrefilter imports, builds and prefilters (R = 2,
// through the prefilter package) every task of ../shared/corpus/terminal-bench
// and checks each verdict against corpusVerdicts.
func TestIntegrationCorpusPrefilter(t *testing.T) {
	dockertest.Skip(t)
	corpus := needCorpus(t)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	rt, err := docker.New()
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close() })
	b, err := images.NewBuilder(rt.Client())
	require.NoError(t, err)
	rp, err := replayer.New()
	require.NoError(t, err)
	dirs, err := filepath.Glob(filepath.Join(corpus, "*"))
	require.NoError(t, err)
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			fault, known := corpusVerdicts[name]
			require.True(t, known, "corpus task %s has no expected verdict in corpusVerdicts", name)
			verdict := prefilterTask(ctx, t, rt, b, rp, dir)
			switch {
			case fault != "":
				assert.Contains(t, verdict, fault, "rejected for the task's own fault")
			case verdict != "kept":
				requireOnlySpeedGate(t, verdict)
			}
		})
	}
}

// prefilterTask returns "kept" or the rejection: the import's problems, or
// the prefilter reason, detail and failing output.
func prefilterTask(ctx context.Context, t *testing.T, rt *docker.Runtime, b *images.Builder, rp *replayer.Replayer, dir string) string {
	t.Helper()
	c, err := Convert(dir, Options{})
	var off *OfflineError
	if errors.As(err, &off) {
		return "rejected at import: " + off.Error()
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
			return "rejected: image build: " + err.Error()
		}
	}
	items, err := prefilter.Discover(w.Dir)
	require.NoError(t, err)
	require.Len(t, items, 1)
	rep, err := prefilter.Run(ctx, rt, rp, items, prefilter.WithRepeats(2), prefilter.WithConcurrency(1))
	require.NoError(t, err)
	res := rep.Results[0]
	if res.Status == prefilter.StatusKept {
		return "kept"
	}
	out := ""
	if res.Failure != nil {
		out = res.Failure.Output
	}
	return fmt.Sprintf("rejected: %s: %s: failing %v\n%s", res.Reason, res.Detail, prefilter.FailingTests(out), out)
}
