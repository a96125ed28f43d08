package importer

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// importATIF reads an ATIF (v1.x) trajectory: system and user steps become
// messages; each agent tool call becomes a step, its observation result
// (by source_call_id) the output; an agent step without tool calls is a noop.
func importATIF(data []byte, id string, c config, rep *Report) (*trajectory.Trajectory, error) {
	var a ATIF
	if err := json.Unmarshal(data, &a); err != nil {
		return nil, fmt.Errorf("%w: expected an ATIF object: %w", ErrFormat, err)
	}
	if !atifV1(a.SchemaVersion) {
		return nil, fmt.Errorf("%w: schema_version %q: expected ATIF version 1 (\"ATIF-v1.0\" to \"ATIF-v1.4\", or \"1.x\")", ErrFormat, a.SchemaVersion)
	}
	b := newBuilder(c, rep)
	b.results = atifResults(a.Steps)
	if a.SessionID != "" && c.id == "" {
		id = a.SessionID
	}
	native := a.Extra != nil && a.Extra.RBX != nil
	if native {
		x := a.Extra.RBX
		if x.ID != "" && c.id == "" {
			id = x.ID
		}
		if x.Task != "" {
			b.traj.Task = x.Task
		}
		b.traj.Vars = x.Vars
	}
	for i, st := range a.Steps {
		msg := atifMessage(st.Message)
		switch st.Source {
		case "system", "user":
			if !native {
				b.messageOf(st.Source, msg)
			}
		case "agent":
			b.atifAgent(i, st)
		default:
			return nil, fmt.Errorf("%w: steps[%d].source %q: expected system, user or agent", ErrFormat, i, st.Source)
		}
	}
	if native {
		b.traj.Messages = a.Extra.RBX.Messages
	}
	return b.finish(id)
}

func (b *builder) atifAgent(i int, st ATIFStep) {
	msg := atifMessage(st.Message)
	var x *atifRBXStep
	if st.Extra != nil {
		x = st.Extra.RBX
	}
	assistant := mustJSON(map[string]any{"role": "assistant", "content": msg})
	if len(st.ToolCalls) == 0 {
		b.atifTextStep(i, st, x, msg, assistant)
		return
	}
	for j, tc := range st.ToolCalls {
		args, err := parseArgs(tc.Arguments)
		if err == nil && x == nil && isMultiEdit(tc.FunctionName) {
			b.atifMultiEdit(i, j, st, tc, args, assistant)
			st.Metrics = nil // the turn's tokens go to its first step only
			continue
		}
		var s trajectory.Step
		if err != nil {
			s = noop(fmt.Sprintf("tool %q: %v", tc.FunctionName, err))
			b.m.rep.warn(fmt.Sprintf("steps[%d].tool_calls[%d]: %s", i, j, s.Note))
		} else {
			s = b.m.step(call{Name: tc.FunctionName, Args: args, ID: tc.ToolCallID})
		}
		if s.Action == trajectory.KindNoop && strings.HasPrefix(s.Note, "unknown tool") {
			b.m.rep.warn(fmt.Sprintf("steps[%d].tool_calls[%d]: %s", i, j, s.Note))
		}
		r, has := b.results.takeFor(i, tc.ToolCallID)
		out, failed := r.output()
		var own json.RawMessage
		if j == 0 {
			own = assistant
		} else {
			st.Metrics, x = nil, nil
		}
		b.finishATIFStep(&s, st, x, out, has, own)
		last := &b.traj.Steps[len(b.traj.Steps)-1]
		if code := r.exitCode(); has && x == nil && code != nil && last.Observation != nil && last.Observation.ExitCode == nil {
			switch last.Action {
			case trajectory.KindShell:
				last.Observation.ExitCode = code
			case kindPatch:
				failed = failed || *code != 0
			}
		}
		if has && failed && x == nil {
			atifFailed(last, out)
		}
	}
}

// atifMultiEdit adds the steps of MultiEdit call j of step i (see
// multiEditSteps): the agent's message on the first, the tool's result
// (kept in the messages only, as a file action's) with the last.
func (b *builder) atifMultiEdit(i, j int, st ATIFStep, tc ATIFToolCall, args map[string]any, assistant json.RawMessage) {
	r, has := b.results.takeFor(i, tc.ToolCallID)
	_, failed := r.output()
	steps, err := b.m.multiEditSteps(args, has && failed)
	if err != nil {
		b.m.rep.warn(fmt.Sprintf("steps[%d].tool_calls[%d]: tool %q: %v; kept as a noop", i, j, tc.FunctionName, err))
		steps = []trajectory.Step{noop(fmt.Sprintf("tool %q not mapped: %v%s", tc.FunctionName, err, argsSuffix(args)))}
	}
	for k, s := range steps {
		var own json.RawMessage
		if j == 0 && k == 0 {
			own = assistant
			if st.Metrics != nil {
				s.Tokens = st.Metrics.CompletionTokens
			}
		}
		b.add(s, own)
	}
}

// atifTextStep maps an agent step without tool calls: a text-mode
// mini-swe-agent turn (one fenced bash block, as Harbor converts such
// runs) is that command, its result the step's own; any other is a noop
// with the agent's words.
func (b *builder) atifTextStep(i int, st ATIFStep, x *atifRBXStep, msg string, assistant json.RawMessage) {
	if x == nil {
		if found := miniBlock.FindAllStringSubmatch(msg, -1); len(found) == 1 {
			s := b.m.step(call{Name: "bash", Args: map[string]any{"command": found[0][1]}})
			r, has := b.results.takeFor(i, "")
			b.finishATIFStep(&s, st, nil, r.Content, has, assistant)
			return
		}
	}
	s := noop(msg)
	b.finishATIFStep(&s, st, x, "", false, assistant)
}

// finishATIFStep sets observation, tokens and messages: from the rbx extra
// when rbx wrote the file, else from ATIF's own fields.
func (b *builder) finishATIFStep(s *trajectory.Step, st ATIFStep, x *atifRBXStep, out string, has bool, own json.RawMessage) {
	if x == nil {
		switch {
		case has && s.Action == trajectory.KindShell && miniCode.MatchString(strings.TrimSpace(out)) && strings.HasPrefix(strings.TrimSpace(out), "<returncode>"):
			miniObserve(s, out) // mini-swe-agent's observation template
		case has:
			recordResult(s, out)
		}
		if st.Metrics != nil {
			s.Tokens = st.Metrics.CompletionTokens
		}
		b.add(*s, own)
		return
	}
	if x.HasOutput || x.ExitCode != nil || x.Status != 0 {
		s.Observation = &trajectory.Observation{ExitCode: x.ExitCode, Status: x.Status, OutputSHA256: x.OutputSHA256, Pinned: x.Pinned}
		if x.HasOutput {
			s.Observation.Output = out
		}
	}
	s.Volatile, s.Checkpoint, s.Compare, s.Tokens, s.Intervened = x.Volatile, x.Checkpoint, x.Compare, x.Tokens, x.Intervened
	s.Messages = x.Messages
	b.add(*s)
}

// atifMessage reads a message that is a string (or, in later versions,
// content parts).
func atifMessage(raw json.RawMessage) string { return text(raw) }
