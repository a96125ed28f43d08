package replayer_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

func ptr[T any](v T) *T { return &v }

func obs(out string, code int) *trajectory.Observation {
	return &trajectory.Observation{Output: out, ExitCode: ptr(code)}
}

func shell(cmd string, o *trajectory.Observation) trajectory.Step {
	return trajectory.Step{Action: trajectory.KindShell, Command: cmd, Observation: o}
}

func TestReplayStopsAtFirstDivergence(t *testing.T) {
	tests := []struct {
		name     string
		steps    []trajectory.Step
		policy   replayer.Comparison
		answers  map[string]sandbox.ExecResult
		k        int
		wantStep int // -1: no divergence
		reason   reason.Reason
	}{
		{name: "all match", steps: []trajectory.Step{shell("echo a", obs("a\n", 0)), shell("echo b", obs("b\n", 0))}, k: 2, wantStep: -1},
		{name: "exit code differs", steps: []trajectory.Step{shell("echo a", obs("a\n", 0)), shell("false", obs("", 0))},
			answers: map[string]sandbox.ExecResult{"false": {ExitCode: 1}}, k: 2, wantStep: 1, reason: reason.ExitCode},
		{name: "output differs", steps: []trajectory.Step{shell("echo a", obs("b\n", 0))}, k: 1, wantStep: 0, reason: reason.Output},
		{name: "output differs but ignored", policy: replayer.CompareIgnore, steps: []trajectory.Step{shell("echo a", obs("b\n", 0))}, k: 1, wantStep: -1},
		{name: "volatile output not compared", steps: []trajectory.Step{{Action: trajectory.KindShell, Command: "echo now", Volatile: true, Observation: obs("then\n", 0)}}, k: 1, wantStep: -1},
		{name: "step compare overrides", steps: []trajectory.Step{{Action: trajectory.KindShell, Command: "echo x", Compare: "ignore", Observation: obs("y\n", 0)}}, k: 1, wantStep: -1},
		{name: "normalized ignores timings", steps: []trajectory.Step{shell("echo Ran 3 tests in 0.002s", obs("Ran 3 tests in 0.010s  \n\n", 0))}, k: 1, wantStep: -1},
		{name: "exact sees timings", policy: replayer.CompareExact, steps: []trajectory.Step{shell("echo Ran 3 tests in 0.002s", obs("Ran 3 tests in 0.010s\n", 0))}, k: 1, wantStep: 0, reason: reason.Output},
		{name: "stops before k", steps: []trajectory.Step{shell("echo a", obs("a\n", 0)), shell("false", obs("", 0))}, k: 1, wantStep: -1},
		{name: "timeout", steps: []trajectory.Step{shell("sleep", nil)},
			answers: map[string]sandbox.ExecResult{"sleep": {TimedOut: true, ExitCode: 124}}, k: 1, wantStep: 0, reason: reason.Timeout},
		{name: "no observation only runs", steps: []trajectory.Step{shell("false", nil)},
			answers: map[string]sandbox.ExecResult{"false": {ExitCode: 1}}, k: 1, wantStep: -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := []replayer.Option{}
			if tc.policy != "" {
				opts = append(opts, replayer.WithCompare(tc.policy))
			}
			r, err := replayer.New(opts...)
			require.NoError(t, err)
			sb := newFake(tc.answers)
			rep, err := r.Replay(context.Background(), sb, &task.Task{ID: "t"}, &trajectory.Trajectory{ID: "x", Steps: tc.steps}, tc.k)
			if tc.wantStep < 0 {
				require.NoError(t, err)
				assert.Nil(t, rep.Divergence)
				assert.Len(t, rep.Steps, tc.k)
				assert.Equal(t, tc.k, rep.Reached())
				return
			}
			var se *replayer.StepError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.wantStep, se.Index)
			assert.Equal(t, tc.reason, se.Reason)
			assert.Equal(t, se, rep.Divergence)
			assert.Len(t, rep.Steps, tc.wantStep+1)
			assert.Equal(t, tc.wantStep, rep.Reached())
		})
	}
}

func TestReplayCheckpointValidation(t *testing.T) {
	steps := []trajectory.Step{shell("echo a", nil), {Action: trajectory.KindNoop, Checkpoint: ptr(false)}, shell("echo b", nil)}
	traj := &trajectory.Trajectory{ID: "x", Steps: steps}
	r, err := replayer.New()
	require.NoError(t, err)
	for _, k := range []int{-1, 4, 2} {
		_, err := r.Replay(context.Background(), newFake(nil), &task.Task{ID: "t"}, traj, k)
		assert.ErrorIs(t, err, replayer.ErrCheckpoint, "k=%d", k)
	}
	for _, k := range []int{0, 1, 3} {
		_, err := r.Replay(context.Background(), newFake(nil), &task.Task{ID: "t"}, traj, k)
		assert.NoError(t, err, "k=%d", k)
	}
}

func TestRunContinuesToLaterCheckpoint(t *testing.T) {
	traj := &trajectory.Trajectory{ID: "x", Steps: []trajectory.Step{shell("echo 0", nil), shell("echo 1", nil), shell("echo 2", nil)}}
	r, err := replayer.New()
	require.NoError(t, err)
	sb := newFake(nil)
	run := r.Start(sb, &task.Task{ID: "t"}, traj)
	_, err = run.To(context.Background(), 1)
	require.NoError(t, err)
	rep, err := run.To(context.Background(), 3)
	require.NoError(t, err)
	assert.Equal(t, 1, rep.From)
	assert.Equal(t, []string{"echo 0", "echo 1", "echo 2"}, sb.ran)
	_, err = run.To(context.Background(), 2)
	assert.ErrorIs(t, err, replayer.ErrCheckpoint)
}

func TestFileActions(t *testing.T) {
	steps := []trajectory.Step{
		{Action: trajectory.KindWriteFile, Path: "a.txt", Content: ptr("one\ntwo\nthree\n"), Mode: "0755"},
		{Action: trajectory.KindWriteFile, Path: "b.bin", ContentB64: "AAEC"},
		{Action: trajectory.KindEditFile, Path: "a.txt", Old: ptr("two"), New: ptr("TWO")},
		{Action: trajectory.KindEditFile, Path: "a.txt", InsertLine: ptr(1), Text: ptr("one and a half")},
		{Action: trajectory.KindEditFile, Path: "b.txt", Old: ptr("x"), New: ptr("y"), All: true},
		{Action: trajectory.KindReadFile, Path: "a.txt", Range: &trajectory.Range{Start: 2, End: 3}, Observation: &trajectory.Observation{Output: "one and a half\nTWO\n"}},
	}
	r, err := replayer.New(replayer.WithCompare(replayer.CompareExact))
	require.NoError(t, err)
	sb := newFake(nil)
	sb.files["b.txt"] = "x x\nx\n"
	_, err = r.Replay(context.Background(), sb, &task.Task{ID: "t"}, &trajectory.Trajectory{ID: "x", Steps: steps}, len(steps))
	require.NoError(t, err)
	assert.Equal(t, "y y\ny\n", sb.files["b.txt"], "all: every occurrence")
	assert.Equal(t, "one\none and a half\nTWO\nthree\n", sb.files["a.txt"])
	assert.Equal(t, "\x00\x01\x02", sb.files["b.bin"])
	assert.EqualValues(t, 0o755, sb.modes["a.txt"])
}

func TestEditFailures(t *testing.T) {
	tests := []struct {
		name string
		step trajectory.Step
		msg  string
	}{
		{"absent", trajectory.Step{Action: trajectory.KindEditFile, Path: "f", Old: ptr("zzz"), New: ptr("y")}, "not found"},
		{"ambiguous", trajectory.Step{Action: trajectory.KindEditFile, Path: "f", Old: ptr("a"), New: ptr("y")}, "occurs 2 times"},
		{"all, absent", trajectory.Step{Action: trajectory.KindEditFile, Path: "f", Old: ptr("zzz"), New: ptr("y"), All: true}, "not found"},
		{"missing file", trajectory.Step{Action: trajectory.KindEditFile, Path: "nope", Old: ptr("a"), New: ptr("y")}, "does not exist"},
		{"line out of range", trajectory.Step{Action: trajectory.KindEditFile, Path: "f", InsertLine: ptr(9), Text: ptr("y")}, "insert_line 9"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := replayer.New()
			require.NoError(t, err)
			sb := newFake(nil)
			sb.files["f"] = "a\na\n"
			_, err = r.Replay(context.Background(), sb, &task.Task{ID: "t"}, &trajectory.Trajectory{ID: "x", Steps: []trajectory.Step{tc.step}}, 1)
			var se *replayer.StepError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, reason.Action, se.Reason)
			assert.Contains(t, err.Error(), tc.msg)
			assert.Equal(t, "a\na\n", sb.files["f"], "a failed edit leaves the file alone")
		})
	}
}

func TestHTTPCaptureAndServices(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if calls == 1 { // the first attempt fails: retried
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"code": "c0ffee", "n": 3}})
	}))
	t.Cleanup(srv.Close)
	hc := retryablehttp.NewClient()
	hc.RetryWaitMin, hc.RetryWaitMax, hc.Logger = time.Millisecond, 5*time.Millisecond, nil
	tk := &task.Task{ID: "t", Services: map[string]string{"otp": "http://example.invalid"}}
	steps := []trajectory.Step{
		{Action: trajectory.KindHTTP, Method: "GET", URL: "{{services.otp}}/otp", Volatile: true,
			Capture: map[string]string{"otp": "data.code", "n": "data.n"}, Observation: &trajectory.Observation{Status: 200, Output: "{}"}},
		{Action: trajectory.KindWriteFile, Path: ".deploy_otp", Content: ptr("{{vars.otp}}/{{vars.n}}")},
	}
	r, err := replayer.New(replayer.WithHTTPClient(hc), replayer.WithServices(map[string]string{"otp": srv.URL}))
	require.NoError(t, err)
	sb := newFake(nil)
	_, err = r.Replay(context.Background(), sb, tk, &trajectory.Trajectory{ID: "x", Steps: steps}, 2)
	require.NoError(t, err)
	assert.Equal(t, "c0ffee/3", sb.files[".deploy_otp"])
	assert.Equal(t, 2, calls)

	// A URL outside the declared services is refused before any request.
	steps[0].URL = "http://127.0.0.1:1/otp"
	_, err = r.Replay(context.Background(), newFake(nil), tk, &trajectory.Trajectory{ID: "x", Steps: steps}, 1)
	var se *replayer.StepError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, reason.Action, se.Reason)
	assert.Contains(t, err.Error(), "not under any of the task's services")
	assert.Equal(t, 2, calls)
}

func TestNormalize(t *testing.T) {
	tests := []struct{ a, b string }{
		{"x\r\ny  \n\n", "x\ny"},
		{"\x1b[31mred\x1b[0m", "red"},
		{"at 2026-11-29T08:32:54Z done", "at 2025-01-01 00:00:00 done"},
		{"took 12ms", "took 3.5s"},
	}
	for _, tc := range tests {
		assert.Equal(t, replayer.Normalize(tc.a), replayer.Normalize(tc.b), "%q vs %q", tc.a, tc.b)
		assert.Equal(t, replayer.NormalizeHex(tc.a), replayer.NormalizeHex(tc.b), "%q vs %q", tc.a, tc.b)
	}
	assert.NotEqual(t, replayer.Normalize("exit 1"), replayer.Normalize("exit 2"))
	// A wrong checksum is a divergence unless hex masking was asked for.
	a, b := "container 0123456789abcdef0123", "container fedcba9876543210fedc"
	assert.NotEqual(t, replayer.Normalize(a), replayer.Normalize(b))
	assert.Equal(t, replayer.NormalizeHex(a), replayer.NormalizeHex(b))
}

func TestRunDo(t *testing.T) {
	r, err := replayer.New()
	require.NoError(t, err)
	sb := newFake(map[string]sandbox.ExecResult{"false": {ExitCode: 1}})
	traj := &trajectory.Trajectory{ID: "x", Vars: map[string]string{"who": "ref"}, Steps: []trajectory.Step{shell("echo a", nil)}}
	run := r.Start(sb, &task.Task{ID: "t"}, traj)
	_, err = run.To(context.Background(), 1)
	require.NoError(t, err)
	tests := []struct {
		name   string
		step   trajectory.Step
		index  int
		exit   int
		reason reason.Reason // "" for no error
	}{
		{"never compared", shell("false", &trajectory.Observation{ExitCode: ptr(0)}), 1, 1, ""},
		{"continues the run's variables", shell("echo {{vars.who}}", nil), 2, 0, ""},
		{"action failure", trajectory.Step{Action: trajectory.KindEditFile, Path: "absent", Old: ptr("x"), New: ptr("y")}, 3, 0, reason.Action},
		{"undefined variable", shell("echo {{vars.nope}}", nil), 4, 0, reason.Action},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := run.Do(context.Background(), tc.step)
			assert.Equal(t, tc.index, res.Index)
			assert.Equal(t, tc.exit, res.ExitCode)
			if tc.reason == "" {
				require.NoError(t, err)
				return
			}
			var se *replayer.StepError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.reason, se.Reason)
			assert.False(t, reason.IsInfra(err))
		})
	}
	assert.Contains(t, sb.ran, "echo ref")
	assert.Equal(t, 1, run.Next(), "Do does not move the reference replay")
}
