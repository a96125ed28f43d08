package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Detect guesses the format of a trajectory document from its shape.
func Detect(data []byte) (Format, error) {
	d := bytes.TrimSpace(data)
	if len(d) == 0 {
		return "", fmt.Errorf("%w: empty input", ErrUnknownFormat)
	}
	switch d[0] {
	case '{':
		if f, ok := detectObject(d); ok {
			return f, nil
		}
		// A JSONL file of native trajectories starts with a native object line.
		if i := bytes.IndexByte(d, '\n'); i > 0 {
			if f, ok := detectObject(d[:i]); ok && f == FormatNative {
				return FormatNative, nil
			}
		}
	case '[':
		if f, ok := detectList(d); ok {
			return f, nil
		}
	}
	return "", fmt.Errorf("%w: expected native, ATIF, OpenAI messages, SWE-agent .traj, mini-swe-agent or OpenHands events", ErrUnknownFormat)
}

func detectObject(d []byte) (Format, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(d, &m) != nil {
		return "", false
	}
	has := func(k string) bool { _, ok := m[k]; return ok }
	var version, tf string
	_ = json.Unmarshal(m["schema_version"], &version)
	_ = json.Unmarshal(m["trajectory_format"], &tf)
	switch {
	case strings.HasPrefix(version, "ATIF"), version != "" && atifV1(version) && has("steps"),
		has("session_id") && has("agent") && has("steps"):
		return FormatATIF, true
	case has("steps") && has("task"):
		return FormatNative, true
	case strings.HasPrefix(tf, "mini-swe-agent"), has("messages") && has("info") && !has("history"):
		return FormatMiniSWEAgent, true
	case has("history") || (has("trajectory") && (has("info") || has("environment"))):
		return FormatSWEAgent, true
	case has("messages"):
		if f, ok := detectList(m["messages"]); ok {
			return f, true
		}
	}
	return "", false
}

// detectList tells OpenHands events from chat messages, and text-style
// mini-swe-agent messages from OpenAI tool-call messages.
func detectList(d []byte) (Format, bool) {
	var items []map[string]json.RawMessage
	if json.Unmarshal(d, &items) != nil || len(items) == 0 {
		return "", false
	}
	first := items[0]
	if _, ok := first["role"]; ok {
		for _, it := range items {
			var m chatMessage
			raw, _ := json.Marshal(it)
			if json.Unmarshal(raw, &m) == nil && m.Role == "assistant" && len(m.ToolCalls) == 0 &&
				miniBlock.MatchString(text(m.Content)) {
				return FormatMiniSWEAgent, true
			}
		}
		return FormatOpenAI, true
	}
	_, src := first["source"]
	_, act := first["action"]
	_, obs := first["observation"]
	if src && (act || obs) {
		return FormatOpenHands, true
	}
	return "", false
}
