package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/trajectory/chat"
	"github.com/rbx-sandbox/rbx/trajectory/tools"
)

// ExportATIF converts t to ATIF v1.4. Every step is an agent step with one
// tool call named after its action kind (a noop is a message-only step);
// what ATIF has no field for (exit codes, checkpoint, volatile, compare,
// the original messages) sits in "extra.rbx", so importing the result gives
// t back.
func ExportATIF(t *trajectory.Trajectory) (*ATIF, error) {
	a := &ATIF{SchemaVersion: ATIFVersion, SessionID: t.ID, Agent: ATIFAgent{Name: "rbx", Version: "1"}}
	x := &atifRootExtra{}
	x.RBX = &struct {
		ID       string            `json:"id,omitempty"`
		Task     string            `json:"task,omitempty"`
		Vars     map[string]string `json:"vars,omitempty"`
		Messages []json.RawMessage `json:"messages,omitempty"`
	}{ID: t.ID, Task: t.Task, Vars: t.Vars, Messages: t.Messages}
	a.Extra = x
	for _, raw := range t.Messages {
		var m chatMessage
		if json.Unmarshal(raw, &m) == nil && (m.Role == "system" || m.Role == "user") {
			a.Steps = append(a.Steps, ATIFStep{Source: m.Role, Message: mustJSON(text(m.Content))})
		}
	}
	for i, s := range t.Steps {
		st, err := atifStep(i, s)
		if err != nil {
			return nil, fmt.Errorf("export step %d to ATIF: %w", i, err)
		}
		a.Steps = append(a.Steps, st)
	}
	for i := range a.Steps {
		a.Steps[i].StepID = i + 1
	}
	return a, nil
}

func atifStep(i int, s trajectory.Step) (ATIFStep, error) {
	x := &atifRBXStep{Volatile: s.Volatile, Checkpoint: s.Checkpoint, Compare: s.Compare, Tokens: s.Tokens, Intervened: s.Intervened, Messages: s.Messages}
	st := ATIFStep{Source: "agent", Extra: &atifStepExtra{RBX: x}}
	if s.Tokens > 0 {
		st.Metrics = &ATIFMetrics{CompletionTokens: s.Tokens}
	}
	if s.Action == trajectory.KindNoop {
		st.Message = mustJSON(s.Note)
		return st, nil
	}
	st.Message = mustJSON(assistantText(s.Messages))
	args, err := tools.Arguments(s)
	if err != nil {
		return st, err
	}
	id := chat.CallID(i)
	st.ToolCalls = []ATIFToolCall{{ToolCallID: id, FunctionName: string(s.Action), Arguments: args}}
	if o := s.Observation; o != nil {
		x.ExitCode, x.Status, x.HasOutput = o.ExitCode, o.Status, true
		x.OutputSHA256, x.Pinned = o.OutputSHA256, o.Pinned
		if o.Output != "" {
			st.Observation = &ATIFObservation{Results: []ATIFResult{{SourceCallID: id, Content: o.Output}}}
		}
	}
	return st, nil
}

// assistantText is the content of the first assistant message in msgs.
func assistantText(msgs []json.RawMessage) string {
	for _, raw := range msgs {
		var m chatMessage
		if json.Unmarshal(raw, &m) == nil && m.Role == "assistant" {
			return text(m.Content)
		}
	}
	return ""
}

// OpenAIChat is an exported conversation: {"id", "messages", "tools"}, the
// shape chat fine-tuning files use.
type OpenAIChat struct {
	ID       string            `json:"id,omitempty"`
	Messages []json.RawMessage `json:"messages"`
}

// ExportOpenAI converts t to OpenAI chat messages: the trajectory's
// messages, then per step an assistant message with one tool call named
// after the action kind (arguments as a JSON string) and a tool message
// with the recorded output; a noop is an assistant message with its note.
// Importing the result gives the same actions back; exit codes, tokens and
// the original per-step messages have no place in the format and are lost.
// A trajectory with intervened steps (rollout-time intervention) flags
// every message with "intervened": true on the messages of those steps,
// false on all others, so that a trainer can mask the intervener's turns.
func ExportOpenAI(t *trajectory.Trajectory) (*OpenAIChat, error) {
	c := &OpenAIChat{ID: t.ID}
	flag := flagger(t)
	for _, m := range t.Messages {
		c.Messages = append(c.Messages, flag(m, false))
	}
	for i, s := range t.Steps {
		if s.Action == trajectory.KindNoop {
			c.Messages = append(c.Messages, flag(mustJSON(map[string]any{"role": "assistant", "content": s.Note}), s.Intervened))
			continue
		}
		id, content := chat.CallID(i), assistantText(s.Messages)
		call, err := chat.Call(s, id, &content)
		if err != nil {
			return nil, fmt.Errorf("export step %d to OpenAI: %w", i, err)
		}
		out := ""
		if s.Observation != nil {
			out = s.Observation.Output
		}
		c.Messages = append(c.Messages, flag(call, s.Intervened), flag(chat.Result(id, out), s.Intervened))
	}
	return c, nil
}

// flagger returns what marks a message intervened or not: the identity
// when no step of t is intervened (the export stays plain chat).
func flagger(t *trajectory.Trajectory) func(json.RawMessage, bool) json.RawMessage {
	for _, s := range t.Steps {
		if s.Intervened {
			return withIntervened
		}
	}
	return func(m json.RawMessage, _ bool) json.RawMessage { return m }
}

// withIntervened sets the message's "intervened" member.
func withIntervened(m json.RawMessage, v bool) json.RawMessage {
	var fields map[string]json.RawMessage
	if json.Unmarshal(m, &fields) != nil {
		return m // not an object: left as it is (trajectories validate their messages)
	}
	fields["intervened"] = mustJSON(v)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // "<" stays "<", as in the other messages
	if enc.Encode(fields) != nil {
		return m
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// WriteJSON writes v as indented JSON without HTML escaping.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
