package importer

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// chatMessage is an OpenAI-style chat message; raw keeps it verbatim.
type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []chatToolCall  `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	// ToolCallIDs is SWE-agent's list form of ToolCallID.
	ToolCallIDs []string `json:"tool_call_ids"`
	// Action is SWE-agent's text action, when there are no tool calls.
	Action string `json:"action"`
	// Intervened is rbx's flag on an intervener's turn (ExportOpenAI).
	Intervened bool `json:"intervened"`

	raw json.RawMessage
}

type chatToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// chatHooks adapt the shared chat conversion to one agent's habits.
type chatHooks struct {
	// textCalls extracts calls from an assistant message without
	// tool_calls (text-style agents); ok false makes it a noop.
	textCalls func(m *chatMessage) (calls []call, ok bool)
	// observe fills s's observation from the tool result's text.
	observe func(s *trajectory.Step, result string)
}

func decodeMessages(data json.RawMessage) ([]*chatMessage, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return nil, fmt.Errorf("%w: expected a list of chat messages: %w", ErrFormat, err)
	}
	out := make([]*chatMessage, 0, len(raws))
	for i, r := range raws {
		var m chatMessage
		if err := json.Unmarshal(r, &m); err != nil {
			return nil, fmt.Errorf("%w: messages[%d]: %w", ErrFormat, i, err)
		}
		if m.Role == "" {
			return nil, fmt.Errorf("%w: messages[%d]: no role", ErrFormat, i)
		}
		m.raw = r
		out = append(out, &m)
	}
	return out, nil
}

// chat converts messages into steps: one per tool call (or text action),
// its result message attached and read as the observation.
func (b *builder) chat(msgs []*chatMessage, h chatHooks) {
	// A call id's results in order: agents reuse ids (SWE-agent sent four
	// calls under one), and each call takes the next result.
	results := map[string][]int{}
	for i, m := range msgs {
		for _, id := range append([]string{m.ToolCallID}, m.ToolCallIDs...) {
			if id != "" && m.Role == "tool" && !slices.Contains(results[id], i) {
				results[id] = append(results[id], i)
			}
		}
	}
	used := map[int]bool{}
	for i, m := range msgs {
		if used[i] {
			continue
		}
		if m.Role != "assistant" {
			b.message(m.raw)
			continue
		}
		if len(m.ToolCalls) == 0 {
			b.textTurn(msgs, i, used, h)
			continue
		}
		for j, tc := range m.ToolCalls {
			var own []json.RawMessage
			if j == 0 {
				own = append(own, m.raw)
			}
			s := b.callStep(fmt.Sprintf("messages[%d].tool_calls[%d]", i, j), tc)
			s.Intervened = m.Intervened
			if k, ok := nextResult(results[tc.ID], used); ok {
				used[k] = true
				own = append(own, msgs[k].raw)
				h.observe(&s, text(msgs[k].Content))
			}
			b.add(s, own...)
		}
	}
}

// textTurn handles an assistant message without tool calls: a text action
// (its result is the next user or tool message) or a message-only noop.
func (b *builder) textTurn(msgs []*chatMessage, i int, used map[int]bool, h chatHooks) {
	m := msgs[i]
	var calls []call
	ok := false
	if h.textCalls != nil {
		calls, ok = h.textCalls(m)
	}
	if !ok {
		s := noop(text(m.Content))
		s.Intervened = m.Intervened
		b.add(s, m.raw)
		return
	}
	// The next user (or tool) message is the result of the turn: of its
	// one call, or of the last of several (Terminus: the terminal after
	// all its keystrokes), with the messages on the first.
	var result *chatMessage
	if n := i + 1; n < len(msgs) && (msgs[n].Role == "user" || msgs[n].Role == "tool") {
		used[n], result = true, msgs[n]
	}
	last := lastActing(len(calls), func(j int) string { return calls[j].Name })
	for j, c := range calls {
		s := b.m.step(c)
		var own []json.RawMessage
		if j == 0 {
			own = append(own, m.raw)
		}
		if j == last && result != nil {
			h.observe(&s, text(result.Content))
			own = append(own, result.raw)
		}
		b.add(s, own...)
	}
}

// nextResult is the first of a call id's result messages not used yet.
func nextResult(ks []int, used map[int]bool) (int, bool) {
	for _, k := range ks {
		if !used[k] {
			return k, true
		}
	}
	return 0, false
}

// callStep maps tc, found at where (named in warnings).
func (b *builder) callStep(where string, tc chatToolCall) trajectory.Step {
	args, err := parseArgs(tc.Function.Arguments)
	if err != nil {
		b.m.rep.warn(fmt.Sprintf("%s: tool %q: %v; kept as a noop", where, tc.Function.Name, err))
		return noop(fmt.Sprintf("tool %q: %v", tc.Function.Name, err))
	}
	return b.m.step(call{Name: tc.Function.Name, Args: args, ID: tc.ID})
}

// parseArgs reads arguments given as a JSON object or as a string holding one.
func parseArgs(raw json.RawMessage) (map[string]any, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return map[string]any{}, nil
	}
	if strings.HasPrefix(s, `"`) {
		var inner string
		if err := json.Unmarshal(raw, &inner); err != nil {
			return nil, fmt.Errorf("arguments: %w", err)
		}
		if strings.TrimSpace(inner) == "" {
			return map[string]any{}, nil
		}
		raw = json.RawMessage(inner)
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, fmt.Errorf("arguments are not a JSON object: %w", err)
	}
	if args == nil {
		args = map[string]any{}
	}
	return args, nil
}

// text is a message content as text: a string, or the text parts of a list.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var sb strings.Builder
		for _, p := range parts {
			sb.WriteString(p.Text)
		}
		return sb.String()
	}
	return ""
}
