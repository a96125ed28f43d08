package policy

import (
	"encoding/json"
	"fmt"

	"github.com/rbx-sandbox/rbx/curriculum/sft"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// PrefixMessages returns the chat the agent has "already had" at checkpoint
// k: the system prompt and instruction, then steps [0, k) as assistant tool
// calls with their recorded results — the trajectory's own messages where it
// recorded them, synthesised by curriculum/sft otherwise.
func PrefixMessages(ep Episode) ([]json.RawMessage, error) {
	tr := ep.Trajectory
	if ep.K < 0 || ep.K > tr.Len() {
		return nil, fmt.Errorf("prefix messages: k = %d outside [0, %d]", ep.K, tr.Len())
	}
	// sft builds the prefix of a target step; a sentinel step at k makes
	// one exist for every k, and is dropped again.
	cut := *tr
	cut.Steps = append(append([]trajectory.Step(nil), tr.Steps[:ep.K]...), trajectory.Step{Action: trajectory.KindShell, Command: "true"})
	exs, err := sft.Examples(ep.Task, &cut, ep.K, ep.K+1)
	if err != nil {
		return nil, fmt.Errorf("prefix messages: %w", err)
	}
	if len(exs) != 1 {
		return nil, fmt.Errorf("prefix messages: expected one example at k = %d, got %d", ep.K, len(exs))
	}
	msgs := exs[0].Messages
	return msgs[:len(msgs)-1], nil
}

// SubmitTool is the name of the tool that ends an episode.
const SubmitTool = "submit"

// Tools returns the function tools an agent may call: the task's actions
// (curriculum/sft's schemas) and submit.
func Tools() []sft.Tool {
	submit := sft.Tool{Type: "function", Function: sft.Function{Name: SubmitTool,
		Description: "Finish the episode: call it when the task is done. The environment is then checked.",
		Parameters:  map[string]any{"type": "object", "properties": map[string]any{}}}}
	return append(sft.Tools(), submit)
}
