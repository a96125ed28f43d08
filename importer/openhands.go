package importer

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// ohEvent is one serialised OpenHands event (action or observation).
type ohEvent struct {
	ID          int             `json:"id"`
	Source      string          `json:"source"`
	Action      string          `json:"action"`
	Observation string          `json:"observation"`
	Cause       *int            `json:"cause"`
	Args        map[string]any  `json:"args"`
	Content     string          `json:"content"`
	Extras      map[string]any  `json:"extras"`
	TCM         *ohToolCallMeta `json:"tool_call_metadata"`
}

type ohToolCallMeta struct {
	FunctionName  string `json:"function_name"`
	ToolCallID    string `json:"tool_call_id"`
	ModelResponse struct {
		ID      string `json:"id"`
		Choices []struct {
			Message json.RawMessage `json:"message"`
		} `json:"choices"`
		Usage struct {
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	} `json:"model_response"`
}

// ohDirView is how OpenHands' editor starts a directory listing.
const ohDirView = "Here's the files and directories up to 2 levels deep in "

// importOpenHands reads an OpenHands event list (event_to_trajectory):
// agent actions become steps, their observations (by cause) the results;
// user messages and the system prompt become messages; environment events
// (agent state changes) carry nothing to replay and are skipped.
func importOpenHands(data []byte, id string, c config, rep *Report) (*trajectory.Trajectory, error) {
	var evs []ohEvent
	if err := json.Unmarshal(data, &evs); err != nil {
		return nil, fmt.Errorf("%w: expected a list of OpenHands events: %w", ErrFormat, err)
	}
	obs := map[int]ohEvent{}
	for _, e := range evs {
		if e.Observation != "" && e.Cause != nil {
			obs[*e.Cause] = e
		}
	}
	b := newBuilder(c, rep)
	seen := map[string]bool{} // model responses already attached (one per LLM turn)
	for _, e := range evs {
		if e.Action == "" || e.Source == "environment" {
			continue
		}
		if e.Source == "user" || e.Action == "system" {
			role := map[bool]string{true: "system", false: "user"}[e.Action == "system"]
			if content, _ := e.Args["content"].(string); e.Action == "message" || e.Action == "system" {
				b.messageOf(role, content)
			}
			continue
		}
		o, observed := obs[e.ID]
		s := b.ohStep(e)
		var own []json.RawMessage
		if m, tokens, ok := e.modelMessage(seen); ok {
			own, s.Tokens = append(own, m), tokens
		} else if text := e.assistantText(); text != "" {
			own = append(own, mustJSON(map[string]any{"role": "assistant", "content": text}))
		}
		if observed {
			ohObserve(&s, o)
			if e.TCM != nil {
				own = append(own, mustJSON(map[string]any{"role": "tool", "tool_call_id": e.TCM.ToolCallID,
					"name": e.TCM.FunctionName, "content": o.Content}))
			}
		}
		b.add(s, own...)
	}
	return b.finish(id)
}

// ohStep maps one agent action event.
func (b *builder) ohStep(e ohEvent) trajectory.Step {
	if e.TCM != nil && e.TCM.FunctionName != "" {
		if tc, ok := e.toolCall(); ok {
			return b.callStep(fmt.Sprintf("event %d", e.ID), tc)
		}
	}
	switch e.Action {
	case "run":
		cmd, _ := e.Args["command"].(string)
		return b.m.step(call{Name: "execute_bash", Args: map[string]any{"command": cmd, "is_input": e.Args["is_input"]}})
	case "edit", "read":
		if args, ok := editorArgs(e.Args); ok {
			return b.m.step(call{Name: "str_replace_editor", Args: args})
		}
		path, _ := e.Args["path"].(string)
		if e.Action == "read" {
			return b.m.step(call{Name: "read", Args: map[string]any{"path": path}})
		}
		content, _ := e.Args["content"].(string)
		return b.m.step(call{Name: "write", Args: map[string]any{"path": path, "content": content}})
	case "message", "finish", "think":
		note := e.thought()
		if c, _ := e.Args["content"].(string); c != "" {
			note = c
		}
		return noop(note)
	}
	return b.m.step(call{Name: "openhands:" + e.Action, Args: e.Args})
}

// editorArgs recovers the editor call of an edit or read event: its
// explicit command arguments, or the Python call it was translated to.
func editorArgs(args map[string]any) (map[string]any, bool) {
	if cmd, _ := args["command"].(string); cmd != "" {
		return args, true
	}
	code, _ := args["translated_ipython_code"].(string)
	i := strings.Index(code, "file_editor(**")
	if i < 0 {
		return nil, false
	}
	lit := strings.TrimSpace(code[i+len("file_editor(**"):])
	lit = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(lit), ")"), ")")
	v, err := parsePyLiteral(lit)
	m, ok := v.(map[string]any)
	return m, err == nil && ok
}

func (e ohEvent) toolCall() (chatToolCall, bool) {
	for _, ch := range e.TCM.ModelResponse.Choices {
		var m chatMessage
		if json.Unmarshal(ch.Message, &m) != nil {
			continue
		}
		for _, tc := range m.ToolCalls {
			if tc.ID == e.TCM.ToolCallID {
				return tc, true
			}
		}
	}
	return chatToolCall{}, false
}

// modelMessage is the assistant message of e's LLM turn, once per turn.
func (e ohEvent) modelMessage(seen map[string]bool) (json.RawMessage, int, bool) {
	if e.TCM == nil || len(e.TCM.ModelResponse.Choices) == 0 {
		return nil, 0, false
	}
	key := e.TCM.ModelResponse.ID
	if key == "" {
		key = e.TCM.ToolCallID
	}
	if seen[key] {
		return nil, 0, false
	}
	seen[key] = true
	return e.TCM.ModelResponse.Choices[0].Message, e.TCM.ModelResponse.Usage.CompletionTokens, true
}

// assistantText is what the agent said with e: a message's (or
// finish's) content, else its thought.
func (e ohEvent) assistantText() string {
	if e.Action == "message" || e.Action == "finish" {
		if c, _ := e.Args["content"].(string); c != "" {
			return c
		}
		if c, _ := e.Args["final_thought"].(string); c != "" {
			return c
		}
	}
	return e.thought()
}

func (e ohEvent) thought() string {
	t, _ := e.Args["thought"].(string)
	return t
}

// ohObserve reads a run observation's exit code (-1: still running, see
// resolveRunning) and output; a directory view becomes a listing.
func ohObserve(s *trajectory.Step, o ohEvent) {
	if s.Action == trajectory.KindReadFile && strings.HasPrefix(o.Content, ohDirView) {
		*s = trajectory.Step{Action: trajectory.KindShell, Tokens: s.Tokens, Compare: "ignore",
			Command: fmt.Sprintf("find %s -maxdepth 2 -not -path '*/.*'", shellQuote(s.Path))}
	}
	if s.Action != trajectory.KindShell && s.Action != kindInput {
		// OpenHands reports a failed file action as an error observation.
		if o.Observation == "error" && s.Action.File() {
			recordFailure(s, o.Content)
		} else {
			recordResult(s, o.Content)
		}
		return
	}
	obs := &trajectory.Observation{Output: o.Content}
	if code, ok := ohExitCode(o); ok && code >= 0 {
		obs.ExitCode = &code
	} else if ok && s.Action == trajectory.KindShell {
		s.Action = kindLeftRunning // -1: still running (resolveRunning)
	}
	s.Observation = obs
}

// ohExitCode is a run observation's exit code; -1 while still running.
func ohExitCode(o ohEvent) (int, bool) {
	md, _ := o.Extras["metadata"].(map[string]any)
	code, ok := md["exit_code"].(float64)
	return int(code), ok
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
