package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/server"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// wrong destroys the work: an episode that plays it cannot succeed.
var wrong = map[string]any{"name": "shell", "arguments": map[string]any{"command": "rm -rf scripts run.sh"}}

func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	h := newHarness(t, nil, []server.Entry{runShPath(t)})
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	code, raw := h.call("GET", "/v1/openapi.json", nil, &doc)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	require.NotEmpty(t, h.srv.Routes())
	for _, r := range h.srv.Routes() {
		method, path, ok := strings.Cut(r, " ")
		require.True(t, ok, r)
		assert.Contains(t, doc.Paths[path], strings.ToLower(method), "route %s is not in openapi.json", r)
	}
	assert.Len(t, doc.Paths, len(h.srv.Routes()), "openapi.json documents a route the server does not register")
}

// TestForkIntervention is the rollout-time intervention case: an episode
// goes wrong at step t, is forked at t (its own first t actions replayed,
// the reference prefix included), continued with the reference actions
// marked intervened, and evaluates as success with its intervened share.
func TestForkIntervention(t *testing.T) {
	e := runShPath(t)
	h := newHarness(t, nil, []server.Entry{e}, server.WithMaxInterventionShare(0.7))
	ep := h.resetFed(e.Task.ID, 4)
	for i := 4; i < 7; i++ {
		h.step(ep.ID, refCall(t, e.Ref, i), false)
	}
	h.step(ep.ID, wrong, false) // step 7 goes wrong
	for i := 8; i < e.Ref.Len(); i++ {
		h.step(ep.ID, refCall(t, e.Ref, i), false)
	}
	parent := h.evaluate(ep.ID)
	require.False(t, parent.Success)
	assert.True(t, parent.Observed, "the policy's own episode feeds the curriculum")

	var fr server.ForkResponse
	code, raw := h.call("POST", "/v1/episodes/"+ep.ID+"/fork", map[string]any{"t": 7}, &fr)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	fork := fr.Episode
	assert.Equal(t, ep.ID, fork.Parent)
	assert.Equal(t, 4, fork.K)
	// Prefix: system, user, 4 reference steps and 3 inherited actions, 2 messages each.
	assert.Len(t, fork.Messages, 2+2*7)
	assert.Contains(t, string(fork.Messages[2+2*5+1]), "total=0", "inherited step 5's live output")
	for i := 7; i < e.Ref.Len(); i++ {
		sr := h.step(fork.ID, refCall(t, e.Ref, i), true)
		assert.Equal(t, i, sr.Step)
	}
	res := h.evaluate(fork.ID)
	assert.True(t, res.Success)
	assert.Equal(t, 1.0, res.Reward)
	assert.Equal(t, 8, res.Steps, "3 inherited + 5 intervened")
	assert.Equal(t, 5, res.Intervened.Steps)
	assert.InDelta(t, 5.0/8, res.Intervened.Share, 1e-9)
	assert.InDelta(t, 5.0/8, res.Intervened.TokenShare, 1e-9)
	assert.False(t, res.ShiftExceeded, "5/8 is under 0.7")
	assert.False(t, res.Observed, "a fork does not feed the curriculum")

	// A fork with a stricter filter: the same share exceeds 0.5.
	h2 := newHarness(t, nil, []server.Entry{e})
	ep2 := h2.reset(e.Task.ID, 10)
	f2 := forkOf(t, h2, ep2.ID, 10)
	h2.step(f2, refCall(t, e.Ref, 10), true)
	h2.step(f2, refCall(t, e.Ref, 11), true)
	res2 := h2.evaluate(f2)
	assert.True(t, res2.Success)
	assert.True(t, res2.ShiftExceeded)

	// The exported fork is a valid trajectory: prefix, inherited, intervened.
	var tr trajectory.Trajectory
	code, raw = h.call("GET", "/v1/episodes/"+fork.ID+"/trajectory", nil, &tr)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	assert.Len(t, tr.Steps, e.Ref.Len())
	require.NoError(t, tr.Validate())
}

func forkOf(t *testing.T, h *harness, id string, at int) string {
	t.Helper()
	var fr server.ForkResponse
	code, raw := h.call("POST", "/v1/episodes/"+id+"/fork", map[string]any{"t": at}, &fr)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	return fr.Episode.ID
}

func TestErrorCodes(t *testing.T) {
	e := runShPath(t)
	h := newHarness(t, nil, []server.Entry{e}, server.WithMaxBody(4096), server.WithMaxEpisodes(4))
	ep := h.reset(e.Task.ID, 11)
	big := strings.Repeat("x", 8192)
	tests := []struct {
		name, method, path string
		body               any
		status             int
		code               string
	}{
		{"unknown task", "POST", "/v1/reset", map[string]any{"task": "nope"}, 404, server.CodeUnknownTask},
		{"bad task id", "POST", "/v1/reset", map[string]any{"task": "../etc"}, 400, server.CodeBadRequest},
		{"bad checkpoint", "POST", "/v1/reset", map[string]any{"task": e.Task.ID, "checkpoint": 13}, 400, server.CodeBadCheckpoint},
		{"bad checkpoint word", "POST", "/v1/reset", map[string]any{"task": e.Task.ID, "checkpoint": "soon"}, 400, server.CodeBadRequest},
		{"group too large", "POST", "/v1/reset", map[string]any{"task": e.Task.ID, "group": 1000}, 400, server.CodeBadRequest},
		{"group over --max-episodes", "POST", "/v1/reset", map[string]any{"task": e.Task.ID, "group": 5}, 400, server.CodeBadRequest},
		{"unknown field", "POST", "/v1/reset", map[string]any{"task": e.Task.ID, "tsk": 1}, 400, server.CodeBadRequest},
		{"too large", "POST", "/v1/reset", map[string]any{"task": big}, 413, server.CodeTooLarge},
		{"unknown tool", "POST", "/v1/episodes/" + ep.ID + "/step", map[string]any{"tool_call": map[string]any{"name": "sudo"}}, 400, server.CodeBadToolCall},
		{"bad arguments", "POST", "/v1/episodes/" + ep.ID + "/step", map[string]any{"tool_call": map[string]any{"name": "write_file", "arguments": map[string]any{"path": 3}}}, 400, server.CodeBadToolCall},
		{"missing argument", "POST", "/v1/episodes/" + ep.ID + "/step", map[string]any{"tool_call": map[string]any{"name": "read_file", "arguments": "{}"}}, 400, server.CodeBadToolCall},
		{"no tool call", "POST", "/v1/episodes/" + ep.ID + "/step", map[string]any{}, 400, server.CodeBadToolCall},
		{"bad episode id", "POST", "/v1/episodes/ep_1/step", map[string]any{}, 400, server.CodeBadRequest},
		{"unknown episode", "POST", "/v1/episodes/ep_00000000000000000000/evaluate", nil, 404, server.CodeUnknownEpisode},
		{"fork beyond", "POST", "/v1/episodes/" + ep.ID + "/fork", map[string]any{"t": 12}, 400, server.CodeBadCheckpoint},
		{"no route", "GET", "/v2/x", nil, 404, server.CodeNotFound},
		{"wrong method", "GET", "/v1/reset", nil, 405, server.CodeMethod},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, raw := h.call(tt.method, tt.path, tt.body, nil)
			assert.Equal(t, tt.status, code, "%s", raw)
			assert.Equal(t, tt.code, errorCode(t, raw))
		})
	}
	// A body of 16 MB is read, then refused with 413: a client that sends
	// it whole before reading (as Python's http.client does) is not cut
	// off mid-body by a reset connection, and reads the answer.
	conn, err := net.Dial("tcp", strings.TrimPrefix(h.url, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	body := strings.Repeat("y", 16<<20)
	_, err = fmt.Fprintf(conn, "POST /v1/reset HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
	require.NoError(t, err)
	_, err = io.WriteString(conn, body)
	require.NoError(t, err, "the whole body was taken")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	// Finished episodes answer episode_finished.
	code, _ := h.call("POST", "/v1/episodes/"+ep.ID+"/close", nil, nil)
	require.Equal(t, http.StatusOK, code)
	code, raw := h.call("POST", "/v1/episodes/"+ep.ID+"/step", map[string]any{"tool_call": wrong}, nil)
	assert.Equal(t, http.StatusConflict, code)
	assert.Equal(t, server.CodeEpisodeFinished, errorCode(t, raw))
}

func TestTokenRequired(t *testing.T) {
	h := newHarness(t, nil, []server.Entry{runShPath(t)}, server.WithToken("s3cret"))
	code, raw := h.call("GET", "/v1/tasks", nil, nil)
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.Equal(t, server.CodeUnauthorized, errorCode(t, raw))
	code, _ = h.call("GET", "/healthz", nil, nil)
	assert.Equal(t, http.StatusOK, code, "health needs no token")
	h.tok = "s3cret"
	code, _ = h.call("GET", "/v1/tasks", nil, nil)
	assert.Equal(t, http.StatusOK, code)
	code, raw = h.call("GET", "/metrics", nil, nil)
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, string(raw), `rbx_serve_errors_total{code="unauthorized"} 1`)
}

func TestIdleEpisodesExpire(t *testing.T) {
	e := runShPath(t)
	h := newHarness(t, nil, []server.Entry{e}, server.WithEpisodeTTL(200*time.Millisecond))
	ep := h.reset(e.Task.ID, 3)
	require.Eventually(t, func() bool {
		var rec struct{ State string }
		code, _ := h.call("GET", "/v1/episodes/"+ep.ID, nil, &rec)
		return code == http.StatusOK && rec.State == server.StateExpired
	}, 5*time.Second, 50*time.Millisecond)
	code, raw := h.call("POST", "/v1/episodes/"+ep.ID+"/step", map[string]any{"tool_call": wrong}, nil)
	assert.Equal(t, http.StatusConflict, code)
	assert.Equal(t, server.CodeEpisodeFinished, errorCode(t, raw))
	_, raw = h.call("GET", "/metrics", nil, nil)
	assert.Contains(t, string(raw), "rbx_serve_episodes_expired_total 1")
}

// TestPrefixUsesLiveObservations: the prefix's tool results are what the
// replay saw, not the recording (a fresh value, like a new OTP).
func TestPrefixUsesLiveObservations(t *testing.T) {
	e := runShPath(t)
	ref := *e.Ref
	ref.Steps = append([]trajectory.Step{{Action: trajectory.KindShell, Command: "echo live-$$", Volatile: true,
		Observation: &trajectory.Observation{Output: "recorded-1\n"}}}, e.Ref.Steps...)
	e.Ref = &ref
	h := newHarness(t, nil, []server.Entry{e})
	ep := h.reset(e.Task.ID, 1)
	var tool map[string]any
	require.NoError(t, json.Unmarshal(ep.Messages[len(ep.Messages)-1], &tool))
	assert.Equal(t, "tool", tool["role"])
	assert.Contains(t, tool["content"], "live-")
	assert.NotContains(t, tool["content"], "recorded")
}

func TestCurriculumListing(t *testing.T) {
	e := runShPath(t)
	h := newHarness(t, nil, []server.Entry{e})
	var rr server.ResetResponse
	code, raw := h.call("POST", "/v1/reset", map[string]any{"task": e.Task.ID, "group": 2}, &rr)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	require.Len(t, rr.Episodes, 2)
	assert.Equal(t, rr.K, rr.Episodes[0].K)
	assert.Equal(t, rr.K, rr.Episodes[1].K)
	for _, ep := range rr.Episodes {
		for i := ep.K; i < e.Ref.Len(); i++ {
			h.step(ep.ID, refCall(t, e.Ref, i), false)
		}
		assert.True(t, h.evaluate(ep.ID).Observed)
	}
	var st struct {
		Tasks []server.TaskState `json:"tasks"`
	}
	code, _ = h.call("GET", "/v1/curriculum?task="+e.Task.ID, nil, &st)
	require.Equal(t, http.StatusOK, code)
	require.Len(t, st.Tasks, 1)
	assert.Len(t, st.Tasks[0].History, 2)
	assert.Equal(t, rr.K, st.Tasks[0].History[0].K)
	require.NotEmpty(t, st.Tasks[0].Checkpoints)
	assert.Equal(t, 2, st.Tasks[0].Checkpoints[0].Successes)
}
