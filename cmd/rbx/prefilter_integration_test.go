package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/examples/deploy-otp/otp"
	"github.com/rbx-sandbox/rbx/images"
	"github.com/rbx-sandbox/rbx/prefilter"
	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
	"github.com/rbx-sandbox/rbx/task"
)

// verdict is one row of the table the mixed-directory test asserts.
type verdict struct {
	Status prefilter.Status
	Reason reason.Reason
}

// TestIntegrationPrefilterMixed runs `rbx prefilter` on the bundled examples
// mixed with deliberately broken trajectories and asserts the whole table:
// every trajectory lands in the right bucket with the right reason.
func TestIntegrationPrefilterMixed(t *testing.T) {
	rt := prefilterDocker(t)
	dir := t.TempDir()
	for _, ex := range []string{"deploy-otp", "run-sh-path", "fix-tests"} {
		require.NoError(t, copyTree(filepath.Join("..", "..", "examples", ex), filepath.Join(dir, ex)))
	}
	require.NoError(t, copyTree(filepath.Join("..", "..", "prefilter", "testdata", "broken"), filepath.Join(dir, "broken")))
	// The stale-OTP trajectory runs against the real deploy-otp task.
	require.NoError(t, copyTree(filepath.Join("..", "..", "prefilter", "testdata", "otp-stale"), filepath.Join(dir, "deploy-otp")))
	otpURL := otpService(t, filepath.Join(dir, "deploy-otp", "task.yaml"))
	// The flaky step's service answers 200 and 404 in turn: with 4 repeats
	// exactly 2 pass, whatever the order (404 is not retried; 5xx would be).
	var calls atomic.Int64
	flip := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1)%2 == 0 {
			http.NotFound(w, nil)
			return
		}
		fmt.Fprintln(w, `{"ok": true}`)
	}))
	t.Cleanup(flip.Close)
	report, out := filepath.Join(dir, "report.json"), filepath.Join(dir, "kept")
	args := []string{"prefilter", dir, "--repeats", "4", "--concurrency", "4", "--runtime", "docker",
		"--service", "otp=" + otpURL, "--service", "flip=" + flip.URL, "--report", report, "--out", out, "--output", "json"}
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), args, Streams{Out: &stdout, ErrOut: &stderr})
	require.Equal(t, exitOK, code, "stderr: %s", stderr.String())
	var rep prefilter.Report
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep), "stdout is the JSON report")

	got := map[string]verdict{}
	byName := map[string]prefilter.Result{}
	for _, r := range rep.Results {
		rel, err := filepath.Rel(dir, r.Key.File)
		require.NoError(t, err)
		name := rel
		if r.Key.Line > 0 {
			name += ":" + strconv.Itoa(r.Key.Line)
		}
		got[name] = verdict{r.Status, r.Reason}
		byName[name] = r
	}
	kept := verdict{Status: prefilter.StatusKept}
	rejected := func(r reason.Reason) verdict { return verdict{prefilter.StatusRejected, r} }
	assert.Equal(t, map[string]verdict{
		"deploy-otp/trajectory.json":       kept,
		"deploy-otp/deploy-otp-stale.json": rejected(reason.ExitCode),
		"run-sh-path/trajectory.json":      kept,
		"fix-tests/trajectory.json":        kept,
		"broken/no-image/trajectory.json":  rejected(reason.ImageMissing),
		"broken/toy/diverged.json":         rejected(reason.Output),
		"broken/toy/flaky.json":            rejected(reason.Flaky),
		"broken/toy/malformed.json":        rejected(reason.ParseError),
		"broken/toy/mixed.jsonl:1":         kept,
		"broken/toy/mixed.jsonl:2":         rejected(reason.ParseError),
		"broken/toy/timeout.json":          rejected(reason.Timeout),
		"broken/toy/verify-fails.json":     rejected(reason.VerifyFailed),
		"broken/toy/volatile.json":         kept,
		"broken/toy/wrong-exit.json":       rejected(reason.ExitCode),
	}, got)
	assert.Equal(t, prefilter.Summary{Total: 14, Kept: 5, Rejected: 9, ByReason: map[reason.Reason]int{
		"parse_error": 2, "image_missing": 1, "exit_code": 2, "output": 1, "verify_failed": 1, "timeout": 1, "flaky": 1,
	}}, rep.Summary)

	// The details a person needs to fix each one.
	wrong := byName["broken/toy/wrong-exit.json"].Failure
	require.NotNil(t, wrong)
	assert.Equal(t, 1, *wrong.Step)
	assert.Equal(t, "0", wrong.Expected)
	assert.Equal(t, "1", wrong.Got)
	assert.Contains(t, wrong.Output, "missing-file")
	stale := byName["deploy-otp/deploy-otp-stale.json"].Failure
	require.NotNil(t, stale)
	assert.Equal(t, 3, *stale.Step, "./deploy.sh rejects the recorded code")
	assert.Contains(t, stale.Output, "expired")
	assert.Contains(t, byName["broken/toy/verify-fails.json"].Failure.Output, "FAIL: ./done not found")
	assert.Equal(t, 2, byName["broken/toy/flaky.json"].Passed, "the flaky step failed one time in two")
	assert.Contains(t, byName["broken/toy/malformed.json"].Detail, "malformed.json:3:")
	assert.Contains(t, byName["broken/toy/mixed.jsonl:2"].Detail, "mixed.jsonl:2:")
	assert.Equal(t, []int{0}, byName["broken/toy/volatile.json"].Nondeterministic)
	assert.Equal(t, 17, byName["fix-tests/trajectory.json"].Deepest)
	assert.Len(t, byName["fix-tests/trajectory.json"].Steps, 17, "per-step timings")
	assert.Equal(t, 1, byName["broken/toy/timeout.json"].Deepest)

	// The report file, the kept set (itself a valid input), and --resume.
	onDisk, err := prefilter.ReadReport(report)
	require.NoError(t, err)
	assert.Equal(t, rep.Summary, onDisk.Summary)
	keptItems, err := prefilter.Discover(out)
	require.NoError(t, err)
	require.Len(t, keptItems, 5)
	for _, it := range keptItems {
		assert.NoError(t, it.Err, "%s loads with its copied task", it.Key.File)
	}
	stdout.Reset()
	args = []string{"prefilter", dir, "--runtime", "docker", "--repeats", "4", "--service", "otp=" + otpURL,
		"--service", "flip=" + flip.URL, "--report", report, "--resume", "--out", out}
	require.Equal(t, exitOK, Run(context.Background(), args, Streams{Out: &stdout, ErrOut: &stderr}), stderr.String())
	assert.Contains(t, stdout.String(), "14 verdict(s) taken from the previous report", "the kept dir inside the input is not judged again")
	assert.Empty(t, ownContainers(t, rt), "every container is removed")
}

func prefilterDocker(t *testing.T) *docker.Runtime {
	t.Helper()
	rt := dockerOrSkip(t)
	b, err := images.NewBuilder(rt.Client())
	require.NoError(t, err)
	_, err = b.Ensure(context.Background(), "rbx/debian:bookworm")
	require.NoError(t, err)
	return rt
}

// ownContainers lists the containers this test process created.
func ownContainers(t *testing.T, rt *docker.Runtime) []container.Summary {
	t.Helper()
	f := filters.NewArgs(filters.Arg("label", sandbox.LabelOwner+"="+sandbox.Owner))
	list, err := rt.Client().ContainerList(context.Background(), container.ListOptions{All: true, Filters: f})
	require.NoError(t, err)
	return list
}

// otpService serves the deploy-otp task's OTP service on loopback.
func otpService(t *testing.T, taskPath string) string {
	t.Helper()
	tk, err := task.Load(taskPath)
	require.NoError(t, err)
	secs, err := strconv.Atoi(tk.Env["OTP_PERIOD"])
	require.NoError(t, err)
	srv, err := otp.NewServer(tk.Env["OTP_SECRET"], time.Duration(secs)*time.Second)
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs.URL
}

// copyTree copies src to dst, keeping file modes (deploy.sh is executable).
func copyTree(src, dst string) error {
	return filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
}
