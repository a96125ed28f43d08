package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox/local"
	"github.com/rbx-sandbox/rbx/server"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

var examplesDir = filepath.Join("..", "..", "examples")

// probeResult is the part of `rbx probe --output json` the tests read.
type probeResult struct {
	Task   string `json:"task"`
	Points []struct {
		K    int     `json:"k"`
		PHat float64 `json:"p_hat"`
		N    int     `json:"n"`
	} `json:"points"`
	Bottleneck *struct {
		K int `json:"k"`
	} `json:"bottleneck"`
}

func decodeProbe(t *testing.T, out string) probeResult {
	t.Helper()
	var r probeResult
	require.NoError(t, json.Unmarshal([]byte(out), &r), out)
	return r
}

// TestProbeTaskID: a task id resolves under --tasks (or $RBX_TASKS); an
// unknown one is a usage error naming the directory, the close matches
// and the known ids.
func TestProbeTaskID(t *testing.T) {
	run := []string{"--runtime", "local", "--rollouts", "1", "--checkpoints", "10,11", "--output", "json"}
	code, out, errOut := runRBX(t, append([]string{"probe", "run-sh-path", "--tasks", examplesDir}, run...)...)
	require.Equal(t, exitOK, code, errOut)
	r := decodeProbe(t, out)
	assert.Equal(t, "run-sh-path", r.Task)
	require.Len(t, r.Points, 2)
	assert.Equal(t, 1.0, r.Points[1].PHat)

	t.Setenv("RBX_TASKS", examplesDir)
	code, out, errOut = runRBX(t, append([]string{"probe", "run-sh-path"}, run...)...)
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "run-sh-path", decodeProbe(t, out).Task)

	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"typo", []string{"run-sh-pth", "--tasks", examplesDir},
			[]string{`"run-sh-pth" is not a path`, "under " + examplesDir, "did you mean run-sh-path?", "known tasks: deploy-otp, fix-tests, run-sh-path"}},
		{"unknown", []string{"nothing-like-it"},
			[]string{"under " + examplesDir + " (--tasks DIR or $RBX_TASKS)", "known tasks: deploy-otp, fix-tests, run-sh-path"}},
		{"empty dir", []string{"run-sh-path", "--tasks", t.TempDir()}, []string{"no task found there"}},
		{"unknown trajectory of a known task", []string{"run-sh-path", "--trajectory", "nope"}, []string{`task "run-sh-path" under`, `no trajectory "nope"`}},
		{"missing path", []string{filepath.Join(examplesDir, "nope")}, []string{"no such file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runRBX(t, append(append([]string{"probe"}, tt.args...), "--runtime", "local")...)
			assert.Equal(t, exitUsage, code, errOut)
			for _, w := range tt.want {
				assert.Contains(t, errOut, w)
			}
		})
	}
}

// servedExample serves run-sh-path on the local runtime and returns the
// URL and the curriculum engine (to check what the probe left in it).
func servedExample(t *testing.T, token string) (string, *curriculum.Engine) {
	t.Helper()
	dir := filepath.Join(examplesDir, "run-sh-path")
	tk, err := task.Load(filepath.Join(dir, "task.yaml"))
	require.NoError(t, err)
	trs, err := trajectory.Load(filepath.Join(dir, "trajectory.json"))
	require.NoError(t, err)
	rt, err := local.New(local.WithBaseDir(t.TempDir()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close() })
	rp, err := replayer.New(replayer.WithExcerpt(64 << 10))
	require.NoError(t, err)
	rs, err := reset.New(rt, rp, reset.WithPoolOptions(pool.WithSize(2)))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rs.Close(context.Background())) })
	eng, err := curriculum.New(curriculum.WithStrategy(curriculum.Sequential))
	require.NoError(t, err)
	srv, err := server.New(context.Background(), rs, rp, eng, []server.Entry{{Task: tk, Ref: trs[0]}},
		server.WithToken(token), server.WithMaxEpisodes(2))
	require.NoError(t, err)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { hs.Close(); require.NoError(t, srv.Close(context.Background())) })
	return hs.URL, eng
}

// TestProbeThroughServer: `rbx probe TASK-ID --server URL` probes with the
// server's reference and pool (its --max-episodes of 2 below the probe's
// concurrency: refused resets are retried), finds the noisy policy's
// bottleneck, and leaves the server's curriculum as it was.
func TestProbeThroughServer(t *testing.T) {
	url, eng := servedExample(t, "s3cret")
	tokenFile := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte("s3cret\n"), 0o600))
	before, err := eng.Status("run-sh-path")
	require.NoError(t, err)

	code, out, errOut := runRBX(t, "probe", "run-sh-path", "--server", url, "--token-file", tokenFile, "--policy", "noisy",
		"--noise", "6=1", "--rollouts", "2", "--checkpoints", "4-8", "--concurrency", "4", "--output", "json")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "the server's curriculum is not fed")
	r := decodeProbe(t, out)
	require.NotNil(t, r.Bottleneck, out)
	assert.Equal(t, 6, r.Bottleneck.K)
	for _, p := range r.Points {
		assert.Equal(t, 2, p.N, "k=%d: every rollout reached a verdict", p.K)
		assert.Equal(t, map[bool]float64{true: 1, false: 0}[p.K > 6], p.PHat, "k=%d", p.K)
	}

	after, err := eng.Status("run-sh-path")
	require.NoError(t, err)
	assert.Equal(t, before, after, "the probe's episodes did not reach the curriculum")
	assert.Empty(t, after.Checkpoints)

	code, _, errOut = runRBX(t, "probe", "run-sh-pat", "--server", url, "--token-file", tokenFile)
	assert.Equal(t, exitUsage, code, errOut)
	assert.Contains(t, errOut, `task "run-sh-pat" is not served by `+url+"; did you mean run-sh-path?; served tasks: run-sh-path")
	code, _, errOut = runRBX(t, "probe", "run-sh-path", "--server", url, "--rollouts", "1", "--checkpoints", "11")
	assert.NotEqual(t, exitOK, code, "without the token")
	assert.Contains(t, errOut, "unauthorized")
	require.Equal(t, http.StatusUnauthorized, statusOf(t, url+"/v1/tasks"))
}

func statusOf(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}
