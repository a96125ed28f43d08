package server

import (
	"encoding/json"
	"fmt"

	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/trajectory/chat"
)

// prefixMessages is the chat a policy continues from checkpoint k: the
// reference's head (system and instruction), then each replayed step as
// an assistant tool call and a tool result carrying the LIVE observation
// of the replay (a fresh OTP, not the recorded one).
func prefixMessages(e *Entry, rep *replayer.Report, k int) ([]json.RawMessage, error) {
	msgs, err := chat.Head(e.Task, e.Ref)
	if err != nil {
		return nil, fmt.Errorf("prefix of task %s: %w", e.Task.ID, err)
	}
	for i := 0; i < k && i < e.Ref.Len(); i++ {
		st := e.Ref.Steps[i]
		live := ""
		if rep != nil && i-rep.From >= 0 && i-rep.From < len(rep.Steps) {
			r := rep.Steps[i-rep.From]
			live = chat.ObservationText(r.Observation())
		}
		m, err := chat.LiveMessages(st, i, live)
		if err != nil {
			return nil, fmt.Errorf("prefix of task %s: step %d: %w", e.Task.ID, i, err)
		}
		msgs = append(msgs, m...)
	}
	return msgs, nil
}

// actionMessages are the tool calls and live results of actions taken
// from step k on (a fork's inherited actions).
func actionMessages(actions []Action, k int) ([]json.RawMessage, error) {
	var msgs []json.RawMessage
	for j, a := range actions {
		m, err := chat.LiveMessages(a.Step, k+j, chat.ObservationText(a.Observation))
		if err != nil {
			return nil, fmt.Errorf("action %d: %w", k+j, err)
		}
		msgs = append(msgs, m...)
	}
	return msgs, nil
}
