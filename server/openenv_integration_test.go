package server_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
	"github.com/rbx-sandbox/rbx/server"
	"github.com/rbx-sandbox/rbx/statedb"
)

// wsClient is an OpenEnv client's side of one /ws session.
type wsClient struct {
	t    *testing.T
	conn *websocket.Conn
}

func dialWS(t *testing.T, url string) *wsClient {
	t.Helper()
	conn, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(url, "http")+"/ws", nil)
	if resp != nil {
		_ = resp.Body.Close()
	}
	t.Cleanup(func() {
		if conn != nil {
			_ = conn.Close()
		}
	})
	require.NoError(t, err)
	return &wsClient{t: t, conn: conn}
}

// frame is a server frame.
type frame struct {
	Type string         `json:"type"`
	Data map[string]any `json:"data"`
}

// send writes a frame and reads the reply.
func (c *wsClient) send(typ string, data any) frame {
	c.t.Helper()
	f := map[string]any{"type": typ}
	if data != nil {
		f["data"] = data
	}
	require.NoError(c.t, c.conn.WriteJSON(f))
	return c.read()
}

func (c *wsClient) read() frame {
	c.t.Helper()
	require.NoError(c.t, c.conn.SetReadDeadline(time.Now().Add(2*time.Minute)))
	var f frame
	require.NoError(c.t, c.conn.ReadJSON(&f))
	return f
}

// observation requires an observation frame and returns its data.
func (c *wsClient) observation(f frame) (obs map[string]any, reward any, done bool) {
	c.t.Helper()
	require.Equal(c.t, "observation", f.Type, "%v", f.Data)
	obs, _ = f.Data["observation"].(map[string]any)
	return obs, f.Data["reward"], f.Data["done"] == true
}

// requireError requires an error frame with code.
func (c *wsClient) requireError(f frame, code string) {
	c.t.Helper()
	require.Equal(c.t, "error", f.Type, "%v", f.Data)
	assert.Equal(c.t, code, f.Data["code"], "%v", f.Data)
}

// callTool is a step in OpenEnv's call_tool form from a {"name", "arguments"} call.
func callTool(call map[string]any) map[string]any {
	return map[string]any{"type": "call_tool", "tool_name": call["name"], "arguments": call["arguments"]}
}

// TestIntegrationOpenEnvSession drives /ws frame by frame on Docker:
// errors before a reset, a reset with extra keys, steps in both action
// forms, list_tools, an unknown tool, state, a repeated reset (which
// closes the first episode), submit (the reward with done), a step after
// done, close; and the outcome reaches the curriculum and the journal as
// an episode of /v1 does.
func TestIntegrationOpenEnvSession(t *testing.T) {
	rt := dockertest.Runtime(t, "rbx/busybox:latest")
	db, err := statedb.Open(context.Background(), filepath.Join(t.TempDir(), "state.db"))
	t.Cleanup(func() {
		if db != nil {
			_ = db.Close()
		}
	})
	require.NoError(t, err)
	e := runShPath(t)
	h := newHarness(t, rt, []server.Entry{e}, server.WithJournalDB(db), server.WithOpenEnv())
	c := dialWS(t, h.url)

	c.requireError(c.send("step", map[string]any{"name": "shell", "arguments": map[string]any{"command": "true"}}), "EXECUTION_ERROR")
	st := c.send("state", nil)
	require.Equal(t, "state", st.Type)
	assert.Nil(t, st.Data["episode_id"])
	require.NoError(t, c.conn.WriteMessage(websocket.TextMessage, []byte("{not json")))
	c.requireError(c.read(), "INVALID_JSON")
	c.requireError(c.send("dance", nil), "UNKNOWN_TYPE")
	c.requireError(c.send("reset", map[string]any{"task": "no-such-task"}), "VALIDATION_ERROR")

	// A reset with what a trainer sends besides: every dataset column.
	obs, reward, done := c.observation(c.send("reset", map[string]any{"task": e.Task.ID, "checkpoint": 10,
		"prompt": "fix it", "answer": nil, "extra": map[string]any{"x": 1}}))
	assert.Nil(t, reward)
	assert.False(t, done)
	first, _ := obs["episode_id"].(string)
	require.NotEmpty(t, first)
	assert.EqualValues(t, 10, obs["k"])
	assert.EqualValues(t, e.Ref.Len(), obs["t"])
	assert.NotEmpty(t, obs["messages"], "the prefix shown to the policy")

	obs, reward, done = c.observation(c.send("step", refCall(t, e.Ref, 10))) // {"name", "arguments"}
	assert.False(t, done)
	assert.EqualValues(t, 0, reward)
	assert.Equal(t, string(e.Ref.Steps[10].Action), obs["tool_name"])
	assert.Nil(t, obs["error"])
	assert.NotEmpty(t, obs["result"])

	st = c.send("state", nil)
	assert.Equal(t, first, st.Data["episode_id"])
	assert.EqualValues(t, 1, st.Data["step_count"])
	assert.EqualValues(t, 10, st.Data["k"])

	obs, _, _ = c.observation(c.send("step", map[string]any{"type": "list_tools"}))
	names := []string{}
	for _, tl := range obs["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	assert.Subset(t, names, []string{"shell", "write_file", "read_file", "edit_file", "submit"})

	obs, _, done = c.observation(c.send("step", map[string]any{"type": "call_tool", "tool_name": "teleport", "arguments": map[string]any{}}))
	assert.False(t, done)
	assert.Equal(t, "tool_not_found", obs["error"].(map[string]any)["error_type"])
	obs, _, _ = c.observation(c.send("step", map[string]any{"name": "shell", "arguments": map[string]any{"cmd": "ls"}}))
	assert.Equal(t, "invalid_args", obs["error"].(map[string]any)["error_type"])

	// A repeated reset starts a new episode and closes the first.
	obs, _, _ = c.observation(c.send("reset", map[string]any{"task": e.Task.ID, "checkpoint": "auto", "seed": 7}))
	second, _ := obs["episode_id"].(string)
	require.NotEqual(t, first, second)
	var sum server.EpisodeSummary
	code, raw := h.call("GET", "/v1/episodes/"+first, nil, &sum)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	assert.Equal(t, server.StateClosed, sum.State)
	k := int(obs["k"].(float64))
	for i := k; i < e.Ref.Len(); i++ {
		_, _, done = c.observation(c.send("step", callTool(refCall(t, e.Ref, i))))
		require.False(t, done, "step %d", i)
	}
	obs, reward, done = c.observation(c.send("step", map[string]any{"type": "call_tool", "tool_name": "submit", "arguments": map[string]any{}}))
	assert.True(t, done)
	assert.EqualValues(t, 1, reward)
	assert.Equal(t, true, obs["success"])
	c.requireError(c.send("step", refCall(t, e.Ref, 0)), "EXECUTION_ERROR")

	// The outcome, as /v1 keeps it: the journal and the curriculum.
	code, raw = h.call("GET", "/v1/episodes/"+second, nil, &sum)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	assert.Equal(t, server.StateEvaluated, sum.State)
	require.NotNil(t, sum.Outcome)
	assert.True(t, sum.Outcome.Success)
	assert.Equal(t, 1.0, sum.Outcome.Reward)
	v1 := h.resetWith(map[string]any{"task": e.Task.ID})
	for i := v1.K; i < e.Ref.Len(); i++ {
		h.step(v1.ID, refCall(t, e.Ref, i), false)
	}
	require.True(t, h.evaluate(v1.ID).Observed)
	var cur struct {
		Tasks []server.TaskState `json:"tasks"`
	}
	code, raw = h.call("GET", "/v1/curriculum?task="+e.Task.ID, nil, &cur)
	require.Equal(t, http.StatusOK, code, "%s", raw)
	require.Len(t, cur.Tasks, 1)
	var seen []string
	for _, ev := range cur.Tasks[0].History {
		seen = append(seen, ev.Episode)
	}
	assert.ElementsMatch(t, []string{second, v1.ID}, seen, "both outcomes reached the curriculum, the explicit-k episode's did not")

	require.NoError(t, c.conn.WriteJSON(map[string]any{"type": "close"}))
	_, _, err = c.conn.ReadMessage()
	var ce *websocket.CloseError
	require.ErrorAs(t, err, &ce, "the server closes the session")
	assert.Equal(t, websocket.CloseNormalClosure, ce.Code)
}

// TestIntegrationOpenEnvCapacity: sessions beyond --max-episodes get
// CAPACITY_REACHED right after the accept, then the socket closes.
func TestIntegrationOpenEnvCapacity(t *testing.T) {
	rt := dockertest.Runtime(t, "rbx/busybox:latest")
	e := runShPath(t)
	h := newHarness(t, rt, []server.Entry{e}, server.WithMaxEpisodes(1), server.WithOpenEnv())
	a := dialWS(t, h.url)
	_, _, _ = a.observation(a.send("reset", map[string]any{"task": e.Task.ID, "checkpoint": 11}))
	b := dialWS(t, h.url)
	f := b.read()
	b.requireError(f, "CAPACITY_REACHED")
	assert.EqualValues(t, 1, f.Data["active_sessions"])
	assert.EqualValues(t, 1, f.Data["max_sessions"])
	_, _, err := b.conn.ReadMessage()
	require.Error(t, err, "closed after the refusal")
	// The first session is untouched.
	_, _, done := a.observation(a.send("step", refCall(t, e.Ref, 11)))
	assert.False(t, done)
}

// TestIntegrationOpenEnvSlowReset: a reset that takes longer than 20 s
// (OpenEnv's client pings every 20 s and gives up 20 s later) answers the
// client's pings while it runs.
func TestIntegrationOpenEnvSlowReset(t *testing.T) {
	rt := dockertest.Runtime(t, "rbx/busybox:latest")
	e := limitedEntry(t, "openenv-slow-reset", "{step_timeout: 60s}")
	e.Ref.Steps[0].Command = "sleep 21; echo one"
	h := newHarness(t, rt, []server.Entry{e}, server.WithOpenEnv())
	c := dialWS(t, h.url)
	var pongs atomic.Int32
	c.conn.SetPongHandler(func(string) error { pongs.Add(1); return nil })
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		tick := time.NewTicker(3 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				_ = c.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(5*time.Second))
			}
		}
	}()
	start := time.Now()
	obs, _, _ := c.observation(c.send("reset", map[string]any{"task": e.Task.ID, "checkpoint": 1}))
	took := time.Since(start)
	assert.EqualValues(t, 1, obs["k"])
	assert.Greater(t, took, 20*time.Second)
	assert.GreaterOrEqual(t, int(pongs.Load()), 5, "pongs during a %s reset", took)
}

// TestOpenEnvGroupKeys: 8 sessions that reset with one group key at auto
// get one k; 8 with 8 keys are placed as 8 groups (Search-Learn's probes
// go to 8 anchors).
func TestOpenEnvGroupKeys(t *testing.T) {
	e := runShPath(t)
	h := newHarness(t, nil, []server.Entry{e}, server.WithMaxEpisodes(32), server.WithOpenEnv())
	ks := func(key func(i int) map[string]any) map[int]int {
		out := map[int]int{}
		for i := range 8 {
			c := dialWS(t, h.url)
			data := map[string]any{"task": e.Task.ID, "checkpoint": "auto"}
			for k, v := range key(i) {
				data[k] = v
			}
			obs, _, _ := c.observation(c.send("reset", data))
			out[int(obs["k"].(float64))]++
		}
		return out
	}
	same := ks(func(int) map[string]any { return map[string]any{"seed": 42} })
	assert.Len(t, same, 1, "one k for the group: %v", same)
	apart := ks(func(i int) map[string]any { return map[string]any{"group": "g" + string(rune('a'+i))} })
	assert.Greater(t, len(apart), 1, "8 groups, several k: %v", apart)
}

// TestGroupKeyWindow: a key's group takes members for the group window
// only, and not after one of its episodes ended: a later reset with the
// key opens a new group (Search-Learn's next probe, another anchor).
func TestGroupKeyWindow(t *testing.T) {
	e := runShPath(t)
	cases := []struct {
		name   string
		window time.Duration
		end    bool // the first episode ends before the second reset
		sameK  bool
	}{
		{"within the window", time.Hour, false, true},
		{"past the window", time.Nanosecond, false, false},
		{"after a member ended", time.Hour, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil, []server.Entry{e}, server.WithGroupWindow(tc.window))
			first := h.resetWith(map[string]any{"task": e.Task.ID, "group_key": "g"})
			if tc.end {
				code, raw := h.call("POST", "/v1/episodes/"+first.ID+"/close", nil, nil)
				require.Equal(t, http.StatusOK, code, "%s", raw)
			}
			time.Sleep(time.Millisecond)
			second := h.resetWith(map[string]any{"task": e.Task.ID, "group_key": "g"})
			assert.Equal(t, tc.sameK, first.K == second.K, "k %d then %d", first.K, second.K)
		})
	}
}
