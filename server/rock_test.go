package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/server"
)

// rockReply is ROCK's envelope.
type rockReply struct {
	Status string          `json:"status"`
	Error  *string         `json:"error"`
	Result json.RawMessage `json:"result"`
}

// rock calls the ROCK API; it requires HTTP 200, ROCK's only status.
func (h *harness) rock(method, path string, body any, header map[string]string) (rockReply, map[string]any) {
	h.t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(h.t, err)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, err := http.NewRequest(method, h.url+"/apis/envs/sandbox/v1"+path, rd)
	require.NoError(h.t, err)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(h.t, err)
	defer resp.Body.Close()
	require.Equal(h.t, http.StatusOK, resp.StatusCode)
	var r rockReply
	require.NoError(h.t, json.NewDecoder(resp.Body).Decode(&r))
	var m map[string]any
	_ = json.Unmarshal(r.Result, &m)
	return r, m
}

// rockStart starts image and polls get_status until it is alive or a
// phase failed; it returns the sandbox id and the last status.
func (h *harness) rockStart(image string, header map[string]string) (string, map[string]any) {
	h.t.Helper()
	r, res := h.rock("POST", "/start_async", map[string]any{"image": image, "auto_clear_time_minutes": 60}, header)
	require.Equal(h.t, "Success", r.Status, "%v", r.Error)
	id := res["sandbox_id"].(string)
	var st map[string]any
	require.Eventually(h.t, func() bool {
		r, st = h.rock("GET", "/get_status?sandbox_id="+id, nil, header)
		if r.Status != "Success" || st["is_alive"] == true {
			return true
		}
		for _, p := range st["status"].(map[string]any) {
			if p.(map[string]any)["status"] == "failed" {
				return true
			}
		}
		return false
	}, time.Minute, 20*time.Millisecond)
	return id, st
}

func TestROCKTaskImageFeedsCurriculum(t *testing.T) {
	e := runShPath(t)
	h := newHarness(t, nil, []server.Entry{e}, server.WithROCK(nil, "none"))
	id, st := h.rockStart("rbx://run-sh-path@auto", nil)
	require.Equal(t, true, st["is_alive"], "%v", st["status"])
	meta := st["metadata"].(map[string]any)
	ep := meta["rbx.episode"].(string)
	assert.Equal(t, "run-sh-path", meta["rbx.task"])
	assert.Equal(t, "true", meta["rbx.feeds_curriculum"])
	assert.NotEmpty(t, meta["rbx.k"])

	_, pre := h.rock("GET", "/rbx/prefix?sandbox_id="+id, nil, nil)
	assert.NotEmpty(t, pre["messages"], "the reference prefix, as OpenAI messages")

	var rec map[string]any
	code, raw := h.call("GET", "/v1/episodes/"+ep, nil, &rec)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	assert.Equal(t, "open", rec["state"], "a ROCK sandbox of an rbx:// image is an episode")

	r, _ := h.rock("POST", "/create_session", map[string]any{"sandbox_id": id, "session": "agent", "env_enable": true}, nil)
	require.Equal(t, "Success", r.Status, "%v", r.Error)
	r, obs := h.rock("POST", "/run_in_session", map[string]any{"sandbox_id": id, "session": "agent", "command": "ls data", "check": "silent"}, nil)
	require.Equal(t, "Success", r.Status, "%v", r.Error)
	assert.Equal(t, "orders.csv", obs["output"], "the session starts in the task's workdir, replayed to k")

	r, _ = h.rock("POST", "/stop", map[string]any{"sandbox_id": id}, nil)
	require.Equal(t, "Success", r.Status, "%v", r.Error)
	_, st = h.rock("GET", "/get_status?sandbox_id="+id+"&include_all_states=true", nil, nil)
	meta = st["metadata"].(map[string]any)
	assert.Equal(t, "true", meta["rbx.observed"], "stop verified the episode and fed the curriculum")
	code, raw = h.call("GET", "/v1/episodes/"+ep, nil, &rec)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	assert.Equal(t, "evaluated", rec["state"])
	var cur struct {
		Tasks []struct {
			History []server.HistoryEvent `json:"history"`
		} `json:"tasks"`
	}
	code, raw = h.call("GET", "/v1/curriculum?task=run-sh-path", nil, &cur)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	require.Len(t, cur.Tasks, 1)
	require.NotEmpty(t, cur.Tasks[0].History)
	last := cur.Tasks[0].History[len(cur.Tasks[0].History)-1]
	assert.Equal(t, ep, last.Episode, "the curriculum recorded the ROCK episode's outcome")
	assert.Equal(t, meta["rbx.success"], map[bool]string{true: "true", false: "false"}[last.Success])
}

func TestROCKExplicitCheckpointAndRefusals(t *testing.T) {
	e := runShPath(t)
	h := newHarness(t, nil, []server.Entry{e}, server.WithROCK(nil, "none"), server.WithMaxEpisodes(1))
	id, st := h.rockStart("rbx://run-sh-path/run-sh-path-ref@2", nil)
	require.Equal(t, true, st["is_alive"], "%v", st["status"])
	meta := st["metadata"].(map[string]any)
	assert.Equal(t, "2", meta["rbx.k"])
	assert.Equal(t, "explicit", meta["rbx.purpose"])
	assert.Equal(t, "false", meta["rbx.feeds_curriculum"], "the caller chose k")

	_, st = h.rockStart("rbx://run-sh-path@auto", nil)
	assert.Equal(t, false, st["is_alive"])
	assert.Contains(t, st["status"].(map[string]any)["docker_run"].(map[string]any)["message"], "too_many_episodes", "--max-episodes counts ROCK sandboxes")
	_, st = h.rockStart("python:3.11", nil)
	assert.Contains(t, st["status"].(map[string]any)["docker_run"].(map[string]any)["message"], "rbx:// images only")
	_, st = h.rockStart("rbx://nope@auto", nil)
	assert.Contains(t, st["status"].(map[string]any)["docker_run"].(map[string]any)["message"], "unknown task")

	r, _ := h.rock("POST", "/stop", map[string]any{"sandbox_id": id}, nil)
	require.Equal(t, "Success", r.Status)
	var rec map[string]any
	h.call("GET", "/v1/episodes/"+meta["rbx.episode"].(string), nil, &rec)
	assert.Equal(t, "evaluated", rec["state"])
}

func TestROCKAuth(t *testing.T) {
	h := newHarness(t, nil, []server.Entry{runShPath(t)}, server.WithROCK(nil, "none"), server.WithToken("s3cret"))
	r, _ := h.rock("GET", "/get_status?sandbox_id=x", nil, nil)
	assert.Equal(t, "Failed", r.Status)
	assert.Contains(t, *r.Error, "bearer token")
	r, _ = h.rock("GET", "/get_status?sandbox_id=x", nil, map[string]string{"XRL-Authorization": "Bearer s3cret"})
	assert.Contains(t, *r.Error, "Sandbox x not found", "the SDK's header carries the token")
	code, _ := h.call("GET", "/v1/tasks", nil, nil)
	assert.Equal(t, http.StatusUnauthorized, code, "the native API is unchanged")
	big := map[string]any{"sandbox_id": "x", "path": "a", "content": strings.Repeat("x", 2<<20)}
	r, _ = h.rock("POST", "/write_file", big, map[string]string{"XRL-Authorization": "Bearer s3cret"})
	assert.Equal(t, "Failed", r.Status, "a body over --max-body is a Failed envelope, not a 413")
	assert.Contains(t, *r.Error, "over the")
}
