// Package openenv serves OpenEnv's environment-server protocol (Hugging
// Face's OpenEnv, docs/openenv.md): one WebSocket session per episode
// slot on /ws (reset, step, state, close and mcp frames, in lockstep), the
// health, schema and metadata routes, JSON-RPC on /mcp and the stateless
// routes `openenv validate` checks. What an episode is, Backend says: rbx
// serve's episodes, through the same machinery as its /v1 API.
package openenv

import (
	"context"
	"encoding/json"
)

// Backend runs the episodes of the protocol's sessions.
type Backend interface {
	// Reset starts an episode from a reset frame's data and returns it
	// with its first observation. The session's previous episode is
	// closed first.
	Reset(ctx context.Context, data ResetData) (Episode, map[string]any, error)
	// Step runs one tool call in an open episode. A call the tool refuses
	// (unknown tool, bad arguments) is a Result with ToolError set, not
	// an error.
	Step(ctx context.Context, episode string, call ToolCall) (Result, error)
	// Close ends an episode without an outcome (idempotent).
	Close(ctx context.Context, episode string) error
	// Tools lists the tools a step may call.
	Tools() []Tool
}

// ResetData is a reset frame's data: what rbx reads of it, and all of it
// (a trainer may send every dataset column; unknown keys are ignored).
type ResetData struct {
	// Task is the task id ("task").
	Task string
	// Checkpoint is "auto" or k ("checkpoint"; empty: auto).
	Checkpoint json.RawMessage
	// GroupKey is "group", else "seed" (TRL's harness sends the GRPO
	// group's id there), as text: resets with one key share their k.
	GroupKey string
	// Raw holds every key as sent.
	Raw map[string]json.RawMessage
}

// Episode is the episode a reset started.
type Episode struct {
	ID   string `json:"episode_id"`
	Task string `json:"task"`
	K    int    `json:"k"`
	T    int    `json:"t"`
}

// ToolCall is a step's action, from either form: {"name", "arguments"} or
// {"type": "call_tool", "tool_name", "arguments"}.
type ToolCall struct {
	Name      string
	Arguments json.RawMessage
}

// Result is what a step produced.
type Result struct {
	// Observation is the observation frame's "observation".
	Observation map[string]any
	// Reward is the episode's reward once Done; nil before.
	Reward *float64
	// Done is set on the step that ended the episode.
	Done bool
}

// Tool is one tool as OpenEnv lists it.
type Tool struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	InputSchema map[string]any `json:"input_schema"`
}
