// Package sft turns a stuck segment of a reference trajectory into
// supervised fine-tuning examples (docs/curriculum.md, the seed's "when
// rollback cannot help"): for each reference step i in [from, to), the chat prefix up to i —
// the trajectory's own messages where it recorded them, synthesised from
// the task and the recorded actions otherwise — followed by the reference
// action as an OpenAI assistant tool call. One JSON object per line, in the
// OpenAI fine-tuning chat format ({"messages", "tools"}).
package sft

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/trajectory/chat"
	"github.com/rbx-sandbox/rbx/trajectory/tools"
)

// ErrRange is returned for a segment outside the trajectory.
var ErrRange = errors.New("segment out of range")

// Example is one supervised example: the last message is the target.
type Example struct {
	Messages []json.RawMessage `json:"messages"`
	Tools    []tools.Tool      `json:"tools"`
	Metadata Metadata          `json:"metadata"`
}

// Metadata says where an example came from.
type Metadata struct {
	Task       string `json:"task"`
	Trajectory string `json:"trajectory"`
	// Step is the index of the target action; From the stuck checkpoint.
	Step int `json:"step"`
	From int `json:"from"`
}

// Examples builds one example per action step in [from, to) (noop steps
// without an assistant message teach no action and are skipped).
func Examples(tk *task.Task, tr *trajectory.Trajectory, from, to int) ([]Example, error) {
	if from < 0 || to > tr.Len() || from >= to {
		return nil, fmt.Errorf("trajectory %s: [%d, %d) of %d steps: %w", tr.ID, from, to, tr.Len(), ErrRange)
	}
	prefix, err := chat.Head(tk, tr)
	if err != nil {
		return nil, err
	}
	var out []Example
	for i := range to {
		msgs, target, err := chat.StepMessages(tr.Steps[i], i)
		if err != nil {
			return nil, fmt.Errorf("trajectory %s step %d: %w", tr.ID, i, err)
		}
		if i >= from && target != nil {
			ex := Example{Messages: append(append([]json.RawMessage(nil), prefix...), target), Tools: tools.Schemas(),
				Metadata: Metadata{Task: tk.ID, Trajectory: tr.ID, Step: i, From: from}}
			out = append(out, ex)
		}
		prefix = append(prefix, msgs...)
	}
	return out, nil
}

// Write writes examples as JSONL and returns how many it wrote.
func Write(w io.Writer, exs []Example) (int, error) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i, ex := range exs {
		if err := enc.Encode(ex); err != nil {
			return i, fmt.Errorf("write example %d: %w", i, err)
		}
	}
	return len(exs), nil
}
