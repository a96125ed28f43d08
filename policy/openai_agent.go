package policy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/trajectory/chat"
	"github.com/rbx-sandbox/rbx/trajectory/tools"
)

// chatAgent is one episode's conversation.
type chatAgent struct {
	cfg      *openaiConfig
	messages []json.RawMessage
	tools    json.RawMessage
	pending  []toolCall // tool calls of the last reply not yet acted on
	waiting  string     // id of the call whose observation comes next
	steps    int
	tokens   int // completion tokens of the last reply, for its first action
}

type toolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type chatMessage struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// nudge answers a reply without a tool call.
const nudge = "No tool call in your reply. Use the tools to act, and call submit when the task is done."

func (a *chatAgent) Act(ctx context.Context, obs *trajectory.Observation) (trajectory.Step, bool, error) {
	if a.waiting != "" && obs != nil {
		a.add(chatMessage{Role: "tool", ToolCallID: a.waiting, Content: ptr(chat.ObservationText(*obs))})
	}
	a.waiting = ""
	for a.steps < a.cfg.maxSteps {
		if len(a.pending) == 0 {
			reply, err := a.complete(ctx)
			if err != nil {
				return trajectory.Step{}, false, err
			}
			if a.pending = reply.ToolCalls; len(a.pending) == 0 {
				a.steps++
				a.add(chatMessage{Role: "user", Content: ptr(nudge)})
			}
			continue
		}
		tc := a.pending[0]
		a.pending = a.pending[1:]
		a.steps++
		if tc.Function.Name == SubmitTool {
			return trajectory.Step{}, true, nil
		}
		s, err := tools.Parse(tc.Function.Name, []byte(tc.Function.Arguments))
		if err == nil && tc.Type != "" && tc.Type != "function" {
			err = fmt.Errorf("%w: tool call type %q: expected function", tools.ErrMalformed, tc.Type)
		}
		if err != nil {
			a.cfg.log.Debug("openai: malformed tool call", "id", tc.ID, "err", err)
			a.add(chatMessage{Role: "tool", ToolCallID: tc.ID, Content: ptr("error: " + err.Error())})
			continue
		}
		a.waiting = tc.ID
		s.Tokens, a.tokens = a.tokens, 0
		return s, false, nil
	}
	return trajectory.Step{}, true, nil
}

func (a *chatAgent) Close() error { return nil }

func (a *chatAgent) add(m chatMessage) { a.messages = append(a.messages, mustMessage(m)) }

func mustMessage(m chatMessage) json.RawMessage {
	b, _ := json.Marshal(m) // plain strings and slices: cannot fail
	return b
}

func ptr(s string) *string { return &s }

// complete asks the model for its next reply and appends it to the chat.
func (a *chatAgent) complete(ctx context.Context) (*chatMessage, error) {
	body := map[string]any{"model": a.cfg.model, "messages": a.messages, "tools": a.tools, "tool_choice": "auto"}
	if a.cfg.temperature != nil {
		body["temperature"] = *a.cfg.temperature
	}
	data, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	endpoint := a.cfg.baseURL + "/chat/completions"
	req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("chat completion: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if a.cfg.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+a.cfg.apiKey)
	}
	resp, err := a.cfg.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("chat completion at %s: %w", endpoint, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("chat completion at %s: read: %w", endpoint, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("chat completion at %s: status %d: %s", endpoint, resp.StatusCode, truncate(string(raw), 300))
	}
	var out struct {
		Choices []struct {
			Message json.RawMessage `json:"message"`
		} `json:"choices"`
		Usage struct {
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	var msg chatMessage
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Choices) == 0 || json.Unmarshal(out.Choices[0].Message, &msg) != nil {
		return nil, fmt.Errorf("chat completion at %s: expected {\"choices\": [{\"message\": ...}]}, got %s", endpoint, truncate(string(raw), 300))
	}
	a.messages = append(a.messages, out.Choices[0].Message)
	a.tokens = out.Usage.CompletionTokens // the shift filter's token share
	return &msg, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
