package policy_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/policy"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// fakeChat is a scripted chat-completions server: each request gets the
// next reply; a reply may be a status code or a delay instead.
type fakeChat struct {
	mu       sync.Mutex
	replies  []reply
	requests []map[string]json.RawMessage
}

type reply struct {
	status int           // non-zero: answer with this status and no message
	delay  time.Duration // sleep first (a timeout for the client)
	calls  string        // tool_calls JSON of the assistant message
}

func (f *fakeChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	var req map[string]json.RawMessage
	_ = json.Unmarshal(body, &req)
	f.requests = append(f.requests, req)
	rep := reply{status: http.StatusInternalServerError}
	if len(f.replies) > 0 {
		rep, f.replies = f.replies[0], f.replies[1:]
	}
	f.mu.Unlock()
	if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-test" {
		http.Error(w, "bad path or key", http.StatusUnauthorized)
		return
	}
	time.Sleep(rep.delay)
	if rep.status != 0 {
		http.Error(w, "scripted failure", rep.status)
		return
	}
	msg := `{"role":"assistant","content":null,"tool_calls":` + rep.calls + `}`
	if rep.calls == "" {
		msg = `{"role":"assistant","content":"I think I am done."}`
	}
	_, _ = io.WriteString(w, `{"id":"x","choices":[{"index":0,"finish_reason":"tool_calls","message":`+msg+`}]}`)
}

func call(id, name, args string) string {
	b, _ := json.Marshal(map[string]any{"id": id, "type": "function", "function": map[string]string{"name": name, "arguments": args}})
	return string(b)
}

func episode(t *testing.T, k int) policy.Episode {
	t.Helper()
	trs, err := trajectory.Load(filepath.Join("..", "examples", "run-sh-path", "trajectory.json"))
	require.NoError(t, err)
	tk, err := task.Load(filepath.Join("..", "examples", "run-sh-path", "task.yaml"))
	require.NoError(t, err)
	return policy.Episode{Task: tk, Trajectory: trs[0], K: k}
}

func TestOpenAIAgentLoop(t *testing.T) {
	fake := &fakeChat{replies: []reply{
		{status: http.StatusServiceUnavailable}, // retried
		{delay: 600 * time.Millisecond},         // the attempt times out: retried
		{calls: "[" + call("c1", "shell", `{"command":"ls"}`) + "," + call("c2", "shell", `{"command":`) + "]"},
		{calls: "[" + call("c3", "launch_rockets", `{}`) + "]"},
		{},
		{calls: "[" + call("c4", "write_file", `{"path":"run.sh","content":"echo hi\n","mode":"0755"}`) + "," + call("c5", "submit", `{}`) + "]"},
	}}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	pol, err := policy.NewOpenAI(srv.URL+"/v1", "test-model", policy.WithAPIKey("sk-test"),
		policy.WithHTTPClient(policy.NewHTTPClient(3, 10*time.Millisecond, 50*time.Millisecond, 300*time.Millisecond)))
	require.NoError(t, err)
	ctx := context.Background()
	agent, err := pol.Start(ctx, episode(t, 9))
	require.NoError(t, err)
	t.Cleanup(func() { _ = agent.Close() })

	s, done, err := agent.Act(ctx, nil)
	require.NoError(t, err, "5xx and a timeout are retried")
	require.False(t, done)
	assert.Equal(t, trajectory.Step{Action: trajectory.KindShell, Command: "ls"}, s)

	// c2 (truncated JSON), c3 (unknown tool) and a reply without tool call
	// are fed back; the next valid call is c4.
	s, done, err = agent.Act(ctx, &trajectory.Observation{Output: "README.md\n"})
	require.NoError(t, err)
	require.False(t, done)
	assert.Equal(t, "run.sh", s.Path)
	assert.Equal(t, "0755", s.Mode)

	_, done, err = agent.Act(ctx, &trajectory.Observation{})
	require.NoError(t, err)
	assert.True(t, done, "submit ends the episode")

	fake.mu.Lock()
	defer fake.mu.Unlock()
	require.Len(t, fake.requests, 6)
	var tools []struct{ Function struct{ Name string } }
	require.NoError(t, json.Unmarshal(fake.requests[0]["tools"], &tools))
	assert.Equal(t, "submit", tools[len(tools)-1].Function.Name)
	var first, last []map[string]any
	require.NoError(t, json.Unmarshal(fake.requests[0]["messages"], &first))
	require.NoError(t, json.Unmarshal(fake.requests[5]["messages"], &last))
	assert.Equal(t, "system", first[0]["role"])
	assert.Equal(t, "tool", first[len(first)-1]["role"], "prefilled with steps [0, 9): the last is step 8's result")
	tail := last[len(first):]
	roles := []string{}
	for _, m := range tail {
		roles = append(roles, m["role"].(string))
	}
	assert.Equal(t, []string{"assistant", "tool", "tool", "assistant", "tool", "assistant", "user"}, roles)
	assert.Equal(t, "README.md\n", tail[1]["content"])
	assert.Contains(t, tail[2]["content"], "malformed action")
	assert.Contains(t, tail[4]["content"], `unknown tool "launch_rockets"`)
}

func TestOpenAIStepLimitAndErrors(t *testing.T) {
	many := []reply{}
	for range 5 {
		many = append(many, reply{calls: "[" + call("c", "shell", `{"command":"true"}`) + "]"})
	}
	fake := &fakeChat{replies: many}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	client := policy.NewHTTPClient(2, time.Millisecond, 5*time.Millisecond, time.Second)
	pol, err := policy.NewOpenAI(srv.URL+"/v1", "m", policy.WithAPIKey("sk-test"), policy.WithMaxSteps(2), policy.WithHTTPClient(client))
	require.NoError(t, err)
	ctx := context.Background()
	agent, err := pol.Start(ctx, episode(t, 0))
	require.NoError(t, err)
	for range 2 {
		_, done, err := agent.Act(ctx, &trajectory.Observation{})
		require.NoError(t, err)
		require.False(t, done)
	}
	_, done, err := agent.Act(ctx, &trajectory.Observation{})
	require.NoError(t, err)
	assert.True(t, done, "the step limit ends the episode")

	// A server that keeps failing: the error names the endpoint after the retries.
	agent, err = pol.Start(ctx, episode(t, 0))
	require.NoError(t, err)
	fake.mu.Lock()
	fake.replies, fake.requests = nil, nil
	fake.mu.Unlock()
	_, _, err = agent.Act(ctx, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "/chat/completions")
	fake.mu.Lock()
	assert.Len(t, fake.requests, 3, "one attempt and two retries")
	fake.mu.Unlock()

	_, err = policy.NewOpenAI("ftp://x", "m")
	assert.Error(t, err)
	_, err = policy.NewOpenAI(srv.URL, "")
	assert.Error(t, err)
}
