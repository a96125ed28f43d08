package importer

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// importOpenAI reads a list of chat messages, or an object with "messages"
// (and optionally "id"), where assistant messages carry tool_calls whose
// arguments are a JSON string or object.
func importOpenAI(data []byte, id string, c config, rep *Report) (*trajectory.Trajectory, error) {
	raw := json.RawMessage(data)
	if t := strings.TrimSpace(string(data)); strings.HasPrefix(t, "{") {
		var obj struct {
			ID       string          `json:"id"`
			Messages json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(data, &obj); err != nil || obj.Messages == nil {
			return nil, fmt.Errorf("%w: expected a list of messages or an object with \"messages\"", ErrFormat)
		}
		raw = obj.Messages
		if obj.ID != "" && c.id == "" {
			id = obj.ID
		}
	}
	msgs, err := decodeMessages(raw)
	if err != nil {
		return nil, err
	}
	b := newBuilder(c, rep)
	b.chat(msgs, chatHooks{observe: recordResult, textCalls: terminusTextCalls})
	return b.finish(id)
}
