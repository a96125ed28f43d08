package sft

import (
	"encoding/json"
	"fmt"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// message is an OpenAI chat message.
type message struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type toolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function functionCall `json:"function"`
}

type functionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // JSON text, as OpenAI sends it
}

// synthesise builds the assistant tool call of a step and the tool result
// carrying its recorded observation.
func synthesise(s trajectory.Step, i int) (message, message, error) {
	args, err := json.Marshal(arguments(s))
	if err != nil {
		return message{}, message{}, err
	}
	id := fmt.Sprintf("call_%d", i)
	call := message{Role: "assistant", ToolCalls: []toolCall{{ID: id, Type: "function",
		Function: functionCall{Name: string(s.Action), Arguments: string(args)}}}}
	out := ""
	if o := s.Observation; o != nil {
		if o.Status != 0 {
			out = fmt.Sprintf("HTTP %d\n", o.Status)
		}
		out += o.Output
		if o.ExitCode != nil && *o.ExitCode != 0 {
			out += fmt.Sprintf("\n[exit code %d]", *o.ExitCode)
		}
	}
	return call, message{Role: "tool", Content: &out, ToolCallID: id}, nil
}

// arguments are the action's fields, named as in the trajectory format.
func arguments(s trajectory.Step) map[string]any {
	a := map[string]any{}
	set := func(k string, v any, ok bool) {
		if ok {
			a[k] = v
		}
	}
	switch s.Action {
	case trajectory.KindShell:
		a["command"] = s.Command
		set("cwd", s.Cwd, s.Cwd != "")
		set("env", s.Env, len(s.Env) > 0)
		set("timeout", s.Timeout, s.Timeout != 0)
	case trajectory.KindWriteFile:
		a["path"] = s.Path
		set("content", s.Content, s.Content != nil)
		set("content_b64", s.ContentB64, s.ContentB64 != "")
		set("mode", s.Mode, s.Mode != "")
	case trajectory.KindReadFile:
		a["path"] = s.Path
		set("range", s.Range, s.Range != nil)
	case trajectory.KindEditFile:
		a["path"] = s.Path
		set("old", s.Old, s.Old != nil)
		set("new", s.New, s.New != nil)
		set("insert_line", s.InsertLine, s.InsertLine != nil)
		set("text", s.Text, s.Text != nil)
	case trajectory.KindHTTP:
		a["method"], a["url"] = s.Method, s.URL
		set("headers", s.Headers, len(s.Headers) > 0)
		set("body", s.Body, s.Body != nil)
	}
	return a
}
