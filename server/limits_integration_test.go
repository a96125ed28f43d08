package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
	"github.com/rbx-sandbox/rbx/server"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// limitedEntry writes a busybox session task with the given limits (YAML
// flow mapping) and a two-step reference, and loads it as an entry.
func limitedEntry(t *testing.T, id, limits string) server.Entry {
	t.Helper()
	dir := t.TempDir()
	tk := fmt.Sprintf("id: %s\ninstruction: wait\nimage: rbx/busybox:latest\nworkdir: /tmp\nshell: session\nlimits: %s\nverify: {command: \"true\"}\n", id, limits)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "task.yaml"), []byte(tk), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "trajectory.json"), []byte(`{"id": "`+id+`-ref", "task": "task.yaml", "steps": [
		{"action": "shell", "command": "echo one", "observation": {"output": "one\n", "exit_code": 0}},
		{"action": "shell", "command": "echo two", "observation": {"output": "two\n", "exit_code": 0}}]}`), 0o644))
	tkv, err := task.Load(filepath.Join(dir, "task.yaml"))
	require.NoError(t, err)
	trs, err := trajectory.Load(filepath.Join(dir, "trajectory.json"))
	require.NoError(t, err)
	return server.Entry{Task: tkv, Ref: trs[0]}
}

func shellCall(cmd string, timeout string) map[string]any {
	args := map[string]any{"command": cmd}
	if timeout != "" {
		args["timeout"] = timeout
	}
	return map[string]any{"name": "shell", "arguments": args}
}

// TestIntegrationServeStepTimeoutCapped: a policy asking for a 600 s
// timeout under a task limit of 2 s is cut at about 2 s, and told so; the
// session goes on.
func TestIntegrationServeStepTimeoutCapped(t *testing.T) {
	rt := dockertest.Runtime(t, "rbx/busybox:latest")
	e := limitedEntry(t, "serve-step-cap", "{step_timeout: 2s}")
	h := newHarness(t, rt, []server.Entry{e})
	ep := h.reset(e.Task.ID, 2)
	start := time.Now()
	sr := h.step(ep.ID, shellCall("sleep 30; echo slept", "600s"), false)
	took := time.Since(start)
	assert.True(t, sr.Observation.TimedOut, "%+v", sr.Observation)
	assert.True(t, sr.Observation.TimeoutCapped, "%+v", sr.Observation)
	assert.NotContains(t, sr.Observation.Output, "slept")
	assert.GreaterOrEqual(t, took, 2*time.Second)
	assert.Less(t, took, 8*time.Second, "cut at the task's 2 s, not the asked 600 s")
	assert.False(t, sr.Truncated)

	sr = h.step(ep.ID, shellCall("echo still here", "1s"), false)
	assert.Equal(t, "still here\n", sr.Observation.Output)
	assert.False(t, sr.Observation.TimeoutCapped, "1 s is under the limit")
}

// TestIntegrationServeEpisodeTimeout: a task's episode_timeout of 3 s ends
// its episodes truncated: a running step is cut at the deadline and
// answers truncated, later calls get episode_finished; an idle episode is
// ended by the expiry loop and its container removed.
func TestIntegrationServeEpisodeTimeout(t *testing.T) {
	rt := dockertest.Runtime(t, "rbx/busybox:latest")
	e := limitedEntry(t, "serve-episode-timeout", "{step_timeout: 30s, episode_timeout: 3s}")
	h := newHarness(t, rt, []server.Entry{e})

	busy, idle := h.reset(e.Task.ID, 2), h.reset(e.Task.ID, 2)
	opened := time.Now()
	host := h.step(idle.ID, shellCall("hostname", ""), false).Observation.Output
	require.NotEmpty(t, strings.TrimSpace(host))

	sr := h.step(busy.ID, shellCall("sleep 20", ""), false)
	assert.Less(t, time.Since(opened), 8*time.Second, "cut at the 3 s deadline, not after the 20 s sleep")
	assert.True(t, sr.Truncated)
	assert.Equal(t, server.TruncEpisodeTimeout, sr.Info.Truncation)
	assert.True(t, sr.Observation.TimedOut)
	for _, path := range []string{"/step", "/evaluate"} {
		code, raw := h.call("POST", "/v1/episodes/"+busy.ID+path, map[string]any{"tool_call": shellCall("true", "")}, nil)
		assert.Equal(t, http.StatusConflict, code, "%s: %s", path, raw)
		assert.Equal(t, server.CodeEpisodeFinished, errorCode(t, raw))
		assert.Contains(t, string(raw), `"state":"truncated"`)
	}

	// The idle one: ended by the expiry loop, its container removed.
	require.Eventually(t, func() bool {
		var rec struct{ State string }
		code, _ := h.call("GET", "/v1/episodes/"+idle.ID, nil, &rec)
		return code == http.StatusOK && rec.State == server.StateTruncated
	}, 10*time.Second, 100*time.Millisecond, "the idle episode ends at its deadline")
	require.Eventually(t, func() bool {
		list, err := rt.List(t.Context(), map[string]string{sandbox.LabelManaged: "true"})
		require.NoError(t, err)
		for _, in := range list {
			if strings.HasPrefix(in.ID, strings.TrimSpace(host)) {
				return false
			}
		}
		return true
	}, 30*time.Second, 200*time.Millisecond, "the truncated episode's container is removed")
	code, raw := h.call("GET", "/metrics", nil, nil)
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, string(raw), "rbx_serve_episodes_truncated_total 2")
	assert.Contains(t, string(raw), "rbx_serve_episodes_open 0")
}

// TestIntegrationServeMaxEpisodes: open episodes are capped, group
// members and forks counted; beyond the cap a reset gets 429
// too_many_episodes with Retry-After, and a slot freed by close is
// usable again.
func TestIntegrationServeMaxEpisodes(t *testing.T) {
	rt := dockertest.Runtime(t, "rbx/busybox:latest")
	e := limitedEntry(t, "serve-max-episodes", "{step_timeout: 30s}")
	h := newHarness(t, rt, []server.Entry{e}, server.WithMaxEpisodes(3))
	resetGroup := func(n int) (*http.Response, []byte) {
		b, err := json.Marshal(map[string]any{"task": e.Task.ID, "checkpoint": 2, "group": n})
		require.NoError(t, err)
		resp, err := http.Post(h.url+"/v1/reset", "application/json", bytes.NewReader(b))
		require.NoError(t, err)
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp, raw
	}
	resp, raw := resetGroup(2)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", raw)

	resp, raw = resetGroup(2)
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode, "%s", raw)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	assert.Equal(t, server.CodeTooManyEpisodes, errorCode(t, raw))
	assert.Contains(t, string(raw), "the server's limit is 3 (--max-episodes)")

	third := h.reset(e.Task.ID, 2)
	code, raw := h.call("POST", "/v1/episodes/"+third.ID+"/fork", map[string]any{"t": 2}, nil)
	assert.Equal(t, http.StatusTooManyRequests, code, "a fork counts: %s", raw)
	assert.Equal(t, server.CodeTooManyEpisodes, errorCode(t, raw))

	code, raw = h.call("POST", "/v1/episodes/"+third.ID+"/close", nil, nil)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	h.reset(e.Task.ID, 2) // the freed slot
	resp, raw = resetGroup(1)
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode, "%s", raw)
}

// TestIntegrationServeExplicitKCurriculum: episodes at an explicit k leave
// the Search-Learn curriculum as it was (no outcome, no probe); with
// feed_curriculum they count.
func TestIntegrationServeExplicitKCurriculum(t *testing.T) {
	rt := dockertest.Runtime(t, "rbx/busybox:latest")
	e := runShPath(t)
	h := newHarness(t, rt, []server.Entry{e})
	curriculum := func() []byte {
		code, raw := h.call("GET", "/v1/curriculum?task="+e.Task.ID, nil, nil)
		require.Equal(t, http.StatusOK, code, "%s", raw)
		return raw
	}
	play := func(ep server.EpisodeInfo) server.EvaluateResponse {
		for i := ep.K; i < e.Ref.Len(); i++ {
			h.step(ep.ID, refCall(t, e.Ref, i), false)
		}
		return h.evaluate(ep.ID)
	}
	before := curriculum()
	for _, k := range []int{0, 6, 11} { // 0 and 11 are Search-Learn anchors
		res := play(h.reset(e.Task.ID, k))
		require.True(t, res.Success)
		assert.False(t, res.Observed, "k = %d", k)
	}
	assert.JSONEq(t, string(before), string(curriculum()), "explicit resets leave the curriculum as it was")

	res := play(h.resetFed(e.Task.ID, 11))
	require.True(t, res.Success)
	assert.True(t, res.Observed)
	var st struct {
		Tasks []server.TaskState `json:"tasks"`
	}
	require.NoError(t, json.Unmarshal(curriculum(), &st))
	require.Len(t, st.Tasks, 1)
	require.Len(t, st.Tasks[0].History, 1)
	assert.Equal(t, 11, st.Tasks[0].History[0].K)
	assert.Equal(t, "explicit", st.Tasks[0].History[0].Purpose)
}
