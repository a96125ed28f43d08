package api

import (
	"encoding/json"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// StepRequest is one policy action.
type StepRequest struct {
	ToolCall *ToolCall `json:"tool_call"`
	// Intervened marks an action an intervener (not the policy) chose.
	Intervened bool `json:"intervened,omitempty"`
	// Tokens is the policy's token count for this turn, for the shift filter.
	Tokens int `json:"tokens,omitempty"`
	// Step, when set, is the step number this action takes (the
	// episode's k plus its actions so far). It makes a retry safe: a step
	// number already run answers with that action's recorded answer
	// (info.repeated) without running it again; another number than the
	// next is refused (409 step_conflict).
	Step *int `json:"step,omitempty"`
}

// StepResponse is the gym-style answer to a step: the observation (also
// as the OpenAI tool message to append), reward 0 until evaluate,
// terminated when the action ended the session shell (observation
// session_lost: the shell's state is gone, so the episode cannot go on;
// evaluate it or close it), truncated when the episode used its step
// budget or reached its episode_timeout (info.truncation says which; at
// the timeout the episode is over, its sandbox released).
type StepResponse struct {
	Episode     string                 `json:"episode"`
	Step        int                    `json:"step"`
	Observation trajectory.Observation `json:"observation"`
	Message     json.RawMessage        `json:"message"`
	Reward      float64                `json:"reward"`
	Terminated  bool                   `json:"terminated"`
	Truncated   bool                   `json:"truncated"`
	Info        StepInfo               `json:"info"`
}

// StepInfo carries timings and counts.
type StepInfo struct {
	// ServerMS is the whole step as the server saw it, ExecMS the sandbox's
	// own execution time; the difference is the server's overhead.
	ServerMS        float64 `json:"server_ms"`
	ExecMS          float64 `json:"exec_ms"`
	Steps           int     `json:"steps"`
	IntervenedSteps int     `json:"intervened_steps"`
	// Truncation says why Truncated is set: TruncStepLimit or
	// TruncEpisodeTimeout.
	Truncation string `json:"truncation,omitempty"`
	// Recovered counts the times the episode's sandbox was rebuilt by
	// replay after an infrastructure fault (this call's included); the
	// observation is the rebuilt sandbox's.
	Recovered int `json:"recovered,omitempty"`
	// End, with Terminated, says the policy's action ended the episode
	// (attribution "policy": it exhausted its sandbox's processes or
	// memory, or its action fails every sandbox); the episode is
	// evaluated with reward 0 and evaluate returns that outcome.
	End *End `json:"end,omitempty"`
	// Repeated: this answers a retried step number; the action did not
	// run again (StepRequest.Step).
	Repeated bool `json:"repeated,omitempty"`
}

// Why a step response is truncated.
const (
	// TruncStepLimit: the episode used its step budget; evaluate it.
	TruncStepLimit = "step_limit"
	// TruncEpisodeTimeout: the episode reached its task's
	// limits.episode_timeout and ended (state truncated); this step was cut
	// at the deadline.
	TruncEpisodeTimeout = "episode_timeout"
)
