package policy

import (
	"encoding/json"
	"fmt"

	"github.com/rbx-sandbox/rbx/trajectory/chat"
	"github.com/rbx-sandbox/rbx/trajectory/tools"
)

// PrefixMessages returns the chat the agent has "already had" at checkpoint
// k: the system prompt and instruction, then steps [0, k) as assistant tool
// calls with their recorded results — the trajectory's own messages where it
// recorded them, synthesised otherwise (trajectory/chat).
func PrefixMessages(ep Episode) ([]json.RawMessage, error) {
	tr := ep.Trajectory
	if ep.K < 0 || ep.K > tr.Len() {
		return nil, fmt.Errorf("prefix messages: k = %d outside [0, %d]", ep.K, tr.Len())
	}
	msgs, err := chat.Head(ep.Task, tr)
	if err != nil {
		return nil, fmt.Errorf("prefix messages: %w", err)
	}
	for i, s := range tr.Steps[:ep.K] {
		m, _, err := chat.StepMessages(s, i)
		if err != nil {
			return nil, fmt.Errorf("prefix messages: step %d: %w", i, err)
		}
		msgs = append(msgs, m...)
	}
	return msgs, nil
}

// SubmitTool is the name of the tool that ends an episode.
const SubmitTool = "submit"

// Tools returns the function tools an agent may call: the task's actions
// (trajectory/tools' schemas) and submit.
func Tools() []tools.Tool {
	submit := tools.Tool{Type: "function", Function: tools.Function{Name: SubmitTool,
		Description: "Finish the episode: call it when the task is done. The environment is then checked.",
		Parameters:  map[string]any{"type": "object", "properties": map[string]any{}}}}
	return append(tools.Schemas(), submit)
}
