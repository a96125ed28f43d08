package intervene_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/intervene"
	"github.com/rbx-sandbox/rbx/policy"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/trajectory/tools"
)

// fakeLLM is an OpenAI-compatible chat endpoint scripted from a reference
// trajectory: the next tool call is the reference step at the count of
// tool calls in the conversation (the prefix's included). Model "policy"
// plays step wrongAt wrong (the noisy corruption); model "intervener"
// plays the reference. It records what each model was shown.
type fakeLLM struct {
	t       *testing.T
	ref     *trajectory.Trajectory
	wrongAt int

	mu              sync.Mutex
	calls           map[string]int
	policySawRubric bool
	intervenerSaw   []string // the intervention prompts
}

const interveningMark = "You are now intervening"

func (f *fakeLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role      string            `json:"role"`
			Content   *string           `json:"content"`
			ToolCalls []json.RawMessage `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	next := 0
	f.mu.Lock()
	f.calls[req.Model]++
	for _, m := range req.Messages {
		next += len(m.ToolCalls)
		if m.Role == "user" && m.Content != nil && strings.Contains(*m.Content, interveningMark) {
			if req.Model == "policy" {
				f.policySawRubric = true
			} else {
				f.intervenerSaw = append(f.intervenerSaw, *m.Content)
			}
		}
	}
	f.mu.Unlock()
	name, args := policy.SubmitTool, json.RawMessage(`{}`)
	if next < f.ref.Len() {
		st := f.ref.Steps[next]
		if req.Model == "policy" && next == f.wrongAt {
			st = policy.Corrupt(st, "/workspace")
		}
		var err error
		name = string(st.Action)
		args, err = tools.Arguments(st)
		require.NoError(f.t, err)
	}
	tokens := map[string]int{"policy": 10, "intervener": 30}[req.Model]
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": nil,
			"tool_calls": []any{map[string]any{"id": "call_x" + string(rune('a'+next)), "type": "function",
				"function": map[string]any{"name": name, "arguments": string(args)}}}}}},
		"usage": map[string]any{"completion_tokens": tokens},
	})
}

// openaiRescued runs the loop with the openai policy and the openai
// intervener against the fake endpoint on loopback.
func openaiRescued(t *testing.T, rt sandbox.Runtime) {
	tk, ref := example(t, "run-sh-path")
	fake := &fakeLLM{t: t, ref: ref, wrongAt: 9, calls: map[string]int{}}
	hs := httptest.NewServer(fake)
	t.Cleanup(hs.Close)
	client := policy.NewHTTPClient(0, time.Millisecond, time.Millisecond, 30*time.Second)
	pol, err := policy.NewOpenAI(hs.URL+"/v1", "policy", policy.WithHTTPClient(client))
	require.NoError(t, err)
	iv, err := policy.NewOpenAI(hs.URL+"/v1", "intervener", policy.WithHTTPClient(client))
	require.NoError(t, err)
	const k = 4
	res := run(t, rt, tk, ref, pol, iv, intervene.WithCheckpoint(k), intervene.WithRollouts(2), intervene.WithBudget(1))
	require.Equal(t, 2, res.Failed, "%+v", res.Rows)
	assert.Equal(t, 2, res.Rescued, "%+v", res.Rows)
	for _, row := range res.Rows {
		assert.Equal(t, 5, row.ForkT, "%v", row.Evidence)
		assertMaskIsIntervener(t, ref, k, row)
		assert.InDelta(t, 30.0/(30+7*10), row.TokenShare, 1e-9, "tokens from the endpoint's usage")
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	assert.False(t, fake.policySawRubric, "the rubric evidence is for the intervener only")
	require.Len(t, fake.intervenerSaw, 2)
	for _, prompt := range fake.intervenerSaw {
		assert.Contains(t, prompt, "[FAIL] script-at-root")
		assert.Contains(t, prompt, "test -x run.sh")
		assert.Contains(t, prompt, "[pass] script-written")
	}
	assert.Equal(t, 2, fake.calls["intervener"], "one budgeted action per intervention")
}

func TestInterveneOpenAILocal(t *testing.T) { openaiRescued(t, localRuntime(t)) }

func TestIntegrationInterveneOpenAIDocker(t *testing.T) {
	openaiRescued(t, dockertest.Runtime(t, "rbx/busybox:latest"))
}
