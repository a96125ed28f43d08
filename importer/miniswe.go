package importer

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// miniBlock is mini-swe-agent's action: one fenced bash block.
var miniBlock = regexp.MustCompile("(?s)```(?:mswea_bash_command|bash|sh)[ \t]*\r?\n(.*?)\r?\n?```")

var (
	miniCode   = regexp.MustCompile(`<returncode>\s*(-?\d+)\s*</returncode>`)
	miniOutput = regexp.MustCompile(`(?s)<output>\r?\n?(.*?)</output>`)
)

// importMiniSWE reads mini-swe-agent output: a bare list of messages, or
// the {info, messages, trajectory_format} file. Text-style runs have one
// fenced bash block per assistant message, answered by a user message
// with <returncode> and <output>; tool-call-style runs are chat messages.
func importMiniSWE(data []byte, id string, c config, rep *Report) (*trajectory.Trajectory, error) {
	raw := json.RawMessage(data)
	if strings.HasPrefix(strings.TrimSpace(string(data)), "{") {
		var obj struct {
			Messages json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(data, &obj); err != nil || obj.Messages == nil {
			return nil, fmt.Errorf("%w: expected a mini-swe-agent message list or {\"messages\": ...}", ErrFormat)
		}
		raw = obj.Messages
	}
	msgs, err := decodeMessages(raw)
	if err != nil {
		return nil, err
	}
	b := newBuilder(c, rep)
	b.chat(msgs, chatHooks{observe: miniObserve, textCalls: miniTextCalls})
	return b.finish(id)
}

func miniTextCalls(m *chatMessage) ([]call, bool) {
	found := miniBlock.FindAllStringSubmatch(text(m.Content), -1)
	if len(found) != 1 {
		return nil, false // mini-swe-agent rejects such turns as format errors
	}
	return []call{{Name: "bash", Args: map[string]any{"command": found[0][1]}}}, true
}

// miniObserve reads "<returncode>N</returncode><output>…</output>".
func miniObserve(s *trajectory.Step, result string) {
	if s.Action != trajectory.KindShell {
		return
	}
	obs := &trajectory.Observation{Output: result}
	if m := miniCode.FindStringSubmatch(result); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			obs.ExitCode = &n
		}
		obs.Output = ""
		if o := miniOutput.FindStringSubmatch(result); o != nil {
			obs.Output = o[1]
		}
	}
	s.Observation = obs
}
