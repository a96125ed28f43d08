package importer

import "encoding/json"

// ATIFVersion is the ATIF schema version rbx writes.
const ATIFVersion = "ATIF-v1.4"

// ATIF is the root object of Harbor's Agent Trajectory Interchange Format
// (harbor docs/rfcs/0001-trajectory-format.md, v1.4).
type ATIF struct {
	SchemaVersion string         `json:"schema_version"`
	SessionID     string         `json:"session_id"`
	Agent         ATIFAgent      `json:"agent"`
	Steps         []ATIFStep     `json:"steps"`
	Notes         string         `json:"notes,omitempty"`
	FinalMetrics  map[string]any `json:"final_metrics,omitempty"`
	Extra         *atifRootExtra `json:"extra,omitempty"`
}

// ATIFAgent names the agent system.
type ATIFAgent struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	ModelName string `json:"model_name,omitempty"`
}

// ATIFStep is one system prompt, user message or agent turn.
type ATIFStep struct {
	StepID           int              `json:"step_id"`
	Timestamp        string           `json:"timestamp,omitempty"`
	Source           string           `json:"source"`
	ModelName        string           `json:"model_name,omitempty"`
	Message          json.RawMessage  `json:"message"`
	ReasoningContent string           `json:"reasoning_content,omitempty"`
	ToolCalls        []ATIFToolCall   `json:"tool_calls,omitempty"`
	Observation      *ATIFObservation `json:"observation,omitempty"`
	Metrics          *ATIFMetrics     `json:"metrics,omitempty"`
	Extra            *atifStepExtra   `json:"extra,omitempty"`
}

// ATIFToolCall is one structured tool invocation.
type ATIFToolCall struct {
	ToolCallID   string          `json:"tool_call_id"`
	FunctionName string          `json:"function_name"`
	Arguments    json.RawMessage `json:"arguments"`
}

// UnmarshalJSON also reads the keys some producers write instead of the
// RFC's: "id" for tool_call_id, "name" for function_name, "input" for
// arguments (Claude Code's own tool_use block). The RFC's win.
func (c *ATIFToolCall) UnmarshalJSON(data []byte) error {
	var raw struct {
		ToolCallID   string          `json:"tool_call_id"`
		FunctionName string          `json:"function_name"`
		Arguments    json.RawMessage `json:"arguments"`
		ID           string          `json:"id"`
		Name         string          `json:"name"`
		Input        json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*c = ATIFToolCall{ToolCallID: raw.ToolCallID, FunctionName: raw.FunctionName, Arguments: raw.Arguments}
	if c.ToolCallID == "" {
		c.ToolCallID = raw.ID
	}
	if c.FunctionName == "" {
		c.FunctionName = raw.Name
	}
	if len(c.Arguments) == 0 {
		c.Arguments = raw.Input
	}
	return nil
}

// ATIFObservation holds the results of a step's calls.
type ATIFObservation struct {
	Results []ATIFResult `json:"results"`
}

// ATIFResult is the result of one call, tied by SourceCallID.
type ATIFResult struct {
	SourceCallID string `json:"source_call_id,omitempty"`
	// Content is the result's text (content parts read as their texts
	// joined).
	Content string `json:"content,omitempty"`
	// IsError is what producers that keep the tool's error flag write
	// (Claude Code's tool_result): the call failed.
	IsError bool `json:"is_error,omitempty"`
	// Extra is the producer's metadata of the result: Harbor keeps the
	// tool's own result there (see harborResult).
	Extra map[string]any `json:"extra,omitempty"`
}

// UnmarshalJSON reads content as a string or as content parts.
func (r *ATIFResult) UnmarshalJSON(data []byte) error {
	type plain ATIFResult
	var v struct {
		plain
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*r = ATIFResult(v.plain)
	r.Content = text(v.Content)
	return nil
}

// ATIFMetrics are a turn's LLM metrics; rbx reads CompletionTokens.
type ATIFMetrics struct {
	PromptTokens     int `json:"prompt_tokens,omitempty"`
	CompletionTokens int `json:"completion_tokens,omitempty"`
	CachedTokens     int `json:"cached_tokens,omitempty"`
}

// atifRootExtra keeps what ATIF has no field for, under "rbx", so that a
// native trajectory survives native → ATIF → native unchanged.
type atifRootExtra struct {
	RBX *struct {
		ID       string            `json:"id,omitempty"`
		Task     string            `json:"task,omitempty"`
		Vars     map[string]string `json:"vars,omitempty"`
		Messages []json.RawMessage `json:"messages,omitempty"`
	} `json:"rbx,omitempty"`
}

// atifStepExtra is the per-step "rbx" extra: step metadata with no ATIF field.
type atifStepExtra struct {
	RBX *atifRBXStep `json:"rbx,omitempty"`
	// Metadata is Harbor's metadata of a step's one tool result (its
	// "tool_call" steps), read as that result's Extra.
	Metadata map[string]any `json:"metadata,omitempty"`
}

type atifRBXStep struct {
	ExitCode   *int              `json:"exit_code,omitempty"`
	Status     int               `json:"status,omitempty"`
	Volatile   bool              `json:"volatile,omitempty"`
	Checkpoint *bool             `json:"checkpoint,omitempty"`
	Compare    string            `json:"compare,omitempty"`
	Tokens     int               `json:"tokens,omitempty"`
	Intervened bool              `json:"intervened,omitempty"`
	Messages   []json.RawMessage `json:"messages,omitempty"`
	// HasOutput marks a step that had an observation, even an empty one.
	HasOutput bool `json:"has_output,omitempty"`
	// OutputSHA256 and Pinned carry a pinned observation (rbx prefilter).
	OutputSHA256 string `json:"output_sha256,omitempty"`
	Pinned       bool   `json:"pinned,omitempty"`
}
