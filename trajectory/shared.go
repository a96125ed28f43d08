package trajectory

import (
	"bytes"
	"encoding/json"
)

// A step's observation output is also, verbatim, the content of the tool
// message the agent read it in: an imported trajectory would hold a large
// output (a 50 MB build log) twice. Written, such a message holds
// "content_from": "observation" instead of its content, and Parse puts
// the content back: the document stores the output once, and readers of
// the messages (prefill) see them whole.
const (
	// ContentFrom is the message member that stands for its content.
	ContentFrom = "content_from"
	// FromObservation is ContentFrom's value: the step's observation output.
	FromObservation = "observation"
	// ShareMin is the size from which a message's content equal to its
	// step's output is written once (smaller ones stay, for readability).
	ShareMin = 4096
)

// sharedOutputs returns t as written: a copy whose step messages equal to
// their step's output (ShareMin or more) say so instead of repeating it.
// t itself is not changed; nil when there is nothing to share.
func sharedOutputs(t *Trajectory) *Trajectory {
	var out *Trajectory
	for i, s := range t.Steps {
		if s.Observation == nil || len(s.Observation.Output) < ShareMin {
			continue
		}
		copied := false
		for j, raw := range s.Messages {
			shared, ok := shareMessage(raw, s.Observation.Output)
			if !ok {
				continue
			}
			if out == nil {
				c := *t
				c.Steps = append([]Step(nil), t.Steps...)
				out = &c
			}
			if !copied {
				out.Steps[i].Messages, copied = append([]json.RawMessage(nil), s.Messages...), true
			}
			out.Steps[i].Messages[j] = shared
		}
	}
	return out
}

// shareMessage is raw with its content replaced by ContentFrom when the
// content is output.
func shareMessage(raw json.RawMessage, output string) (json.RawMessage, bool) {
	// A cheap look first: the content is at least as long as output.
	if len(raw) < len(output) || !bytes.Contains(raw, []byte(`"content"`)) {
		return nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil, false
	}
	var content string
	if _, from := m[ContentFrom]; from || json.Unmarshal(m["content"], &content) != nil || content != output {
		return nil, false
	}
	delete(m, "content")
	m[ContentFrom] = json.RawMessage(`"` + FromObservation + `"`)
	b, err := json.Marshal(m)
	return b, err == nil
}

// expandMessage puts a shared message's content back from output; ok is
// false when raw says ContentFrom with anything but FromObservation or
// output is missing (has).
func expandMessage(raw json.RawMessage, output string, has bool) (json.RawMessage, bool, error) {
	if !bytes.Contains(raw, []byte(`"`+ContentFrom+`"`)) {
		return raw, true, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return raw, true, nil // checkMessage reports it
	}
	v, ok := m[ContentFrom]
	if !ok {
		return raw, true, nil
	}
	var from string
	if json.Unmarshal(v, &from) != nil || from != FromObservation || !has {
		return raw, false, nil
	}
	content, err := json.Marshal(output)
	if err != nil {
		return raw, false, err
	}
	delete(m, ContentFrom)
	m["content"] = content
	b, err := json.Marshal(m)
	return b, err == nil, err
}
