package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/local"
	"github.com/rbx-sandbox/rbx/server"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// examplesDir is the repository's examples/.
func examplesDir(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	require.True(t, ok)
	return filepath.Join(filepath.Dir(file), "..", "examples")
}

// runShPath loads the run-sh-path example (busybox, shell steps only).
func runShPath(t testing.TB) server.Entry {
	t.Helper()
	dir := filepath.Join(examplesDir(t), "run-sh-path")
	tk, err := task.Load(filepath.Join(dir, "task.yaml"))
	require.NoError(t, err)
	trs, err := trajectory.Load(filepath.Join(dir, "trajectory.json"))
	require.NoError(t, err)
	return server.Entry{Task: tk, Ref: trs[0]}
}

// harness is a server on a loopback httptest listener.
type harness struct {
	t   testing.TB
	srv *server.Server
	rs  *reset.Resetter
	rt  sandbox.Runtime
	url string
	tok string
}

// newHarness serves entries on rt (the local runtime when nil).
func newHarness(t testing.TB, rt sandbox.Runtime, entries []server.Entry, opts ...server.Option) *harness {
	t.Helper()
	if rt == nil {
		lrt, err := local.New()
		require.NoError(t, err)
		rt = lrt
	}
	rp, err := replayer.New(replayer.WithExcerpt(64 << 10))
	require.NoError(t, err)
	rs, err := reset.New(rt, rp, reset.WithPoolOptions(pool.WithSize(2)))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rs.Close(context.Background())) })
	eng, err := curriculum.New(curriculum.WithStrategy(curriculum.SearchLearn))
	require.NoError(t, err)
	srv, err := server.New(context.Background(), rs, rp, eng, entries, opts...)
	require.NoError(t, err)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { hs.Close(); require.NoError(t, srv.Close(context.Background())) })
	return &harness{t: t, srv: srv, rs: rs, rt: rt, url: hs.URL}
}

// call sends a JSON request and decodes the answer into out (when not
// nil); it returns the status and the raw body.
func (h *harness) call(method, path string, body, out any) (int, []byte) {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(h.t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, h.url+path, rd)
	require.NoError(h.t, err)
	if h.tok != "" {
		req.Header.Set("Authorization", "Bearer "+h.tok)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(h.t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(h.t, err)
	if out != nil && resp.StatusCode == http.StatusOK {
		require.NoError(h.t, json.Unmarshal(raw, out), "%s", raw)
	}
	return resp.StatusCode, raw
}

// errorCode is the code of an error body.
func errorCode(t testing.TB, raw []byte) string {
	t.Helper()
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(raw, &e), "%s", raw)
	return e.Error.Code
}

// reset opens one episode at k and returns it.
func (h *harness) reset(task string, k int) server.EpisodeInfo {
	h.t.Helper()
	return h.resetWith(map[string]any{"task": task, "checkpoint": k})
}

// resetFed opens one episode at k whose outcome feeds the curriculum
// (feed_curriculum), as an episode at "auto" would.
func (h *harness) resetFed(task string, k int) server.EpisodeInfo {
	h.t.Helper()
	return h.resetWith(map[string]any{"task": task, "checkpoint": k, "feed_curriculum": true})
}

func (h *harness) resetWith(body map[string]any) server.EpisodeInfo {
	h.t.Helper()
	var rr server.ResetResponse
	code, raw := h.call("POST", "/v1/reset", body, &rr)
	require.Equal(h.t, http.StatusOK, code, "%s", raw)
	require.Len(h.t, rr.Episodes, 1)
	return rr.Episodes[0]
}

// refCall is the tool call that replays reference step i.
func refCall(t testing.TB, ref *trajectory.Trajectory, i int) map[string]any {
	t.Helper()
	s := ref.Steps[i]
	s.Observation, s.Tokens, s.Messages, s.Checkpoint, s.Volatile, s.Compare = nil, 0, nil, nil, false, ""
	b, err := json.Marshal(s)
	require.NoError(t, err)
	args := map[string]any{}
	require.NoError(t, json.Unmarshal(b, &args))
	delete(args, "action")
	return map[string]any{"name": string(s.Action), "arguments": args}
}

// step plays one tool call and requires a 200.
func (h *harness) step(id string, call map[string]any, intervened bool) server.StepResponse {
	h.t.Helper()
	var sr server.StepResponse
	code, raw := h.call("POST", fmt.Sprintf("/v1/episodes/%s/step", id), map[string]any{"tool_call": call, "intervened": intervened, "tokens": 10}, &sr)
	require.Equal(h.t, http.StatusOK, code, "%s", raw)
	return sr
}

func (h *harness) evaluate(id string) server.EvaluateResponse {
	h.t.Helper()
	var er server.EvaluateResponse
	code, raw := h.call("POST", "/v1/episodes/"+id+"/evaluate", nil, &er)
	require.Equal(h.t, http.StatusOK, code, "%s", raw)
	return er
}
