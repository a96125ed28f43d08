package importer

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// builder collects steps and attaches chat messages to them: messages seen
// before the first step open the trajectory (system prompt, instruction),
// later ones go to the next step, trailing ones to the last step.
type builder struct {
	m       *mapper
	traj    trajectory.Trajectory
	pending []json.RawMessage
	started bool
	results atifResultIndex // ATIF: the file's tool results by call id
}

func newBuilder(c config, rep *Report) *builder {
	return &builder{m: &mapper{tools: c.tools, rep: rep}, traj: trajectory.Trajectory{Task: c.task}}
}

// message queues a raw chat message for the next step.
func (b *builder) message(raw json.RawMessage) {
	if len(raw) > 0 {
		b.pending = append(b.pending, raw)
	}
}

// messageOf queues a synthesised {role, content} message.
func (b *builder) messageOf(role, content string) {
	b.message(mustJSON(map[string]any{"role": role, "content": content}))
}

// add appends s with the pending messages and msgs as its messages.
func (b *builder) add(s trajectory.Step, msgs ...json.RawMessage) *trajectory.Step {
	if !b.started {
		b.traj.Messages, b.pending, b.started = b.pending, nil, true
	}
	s.Messages = append(append(s.Messages, b.pending...), nonEmpty(msgs)...)
	b.pending = nil
	b.traj.Steps = append(b.traj.Steps, s)
	return &b.traj.Steps[len(b.traj.Steps)-1]
}

// finish returns the trajectory, validated as a native document.
func (b *builder) finish(id string) (*trajectory.Trajectory, error) {
	if len(b.traj.Steps) == 0 {
		return nil, fmt.Errorf("%w: no agent turn found", ErrNoSteps)
	}
	if len(b.pending) > 0 {
		last := &b.traj.Steps[len(b.traj.Steps)-1]
		last.Messages = append(last.Messages, b.pending...)
		b.pending = nil
	}
	b.traj.ID = id
	steps, err := resolvePatches(b.traj.Steps)
	if err != nil {
		return nil, fmt.Errorf("%w: imported %w", ErrUnfaithful, err)
	}
	b.traj.Steps = steps
	if err := resolveUndos(b.traj.Steps); err != nil {
		return nil, fmt.Errorf("%w: imported %w", ErrUnfaithful, err)
	}
	if err := resolveRunning(b.traj.Steps); err != nil {
		return nil, fmt.Errorf("%w: imported %w", ErrUnfaithful, err)
	}
	if err := resolveBackground(b.traj.Steps); err != nil {
		return nil, fmt.Errorf("%w: imported %w", ErrUnfaithful, err)
	}
	resolveNotebooks(b.traj.Steps)
	t := b.traj
	return &t, validate(&t)
}

// validate checks t as rbx would read it back.
func validate(t *trajectory.Trajectory) error {
	var sb strings.Builder
	if err := trajectory.Write(&sb, t); err != nil {
		return err
	}
	if _, err := trajectory.Parse(t.ID+".json", []byte(sb.String()), false); err != nil {
		return fmt.Errorf("imported trajectory is not valid: %w", err)
	}
	return nil
}

func nonEmpty(msgs []json.RawMessage) []json.RawMessage {
	var out []json.RawMessage
	for _, m := range msgs {
		if len(m) > 0 {
			out = append(out, m)
		}
	}
	return out
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only called on maps of plain values
	}
	return b
}

var idUnsafe = regexp.MustCompile(`[^a-z0-9._-]+`)

// IDFromName derives a task or trajectory id from a file or folder name.
func IDFromName(name string) string {
	base := strings.ToLower(filepath.Base(name))
	for _, ext := range []string{".json", ".jsonl", ".traj"} {
		base = strings.TrimSuffix(base, ext)
	}
	base = strings.TrimSuffix(base, ".traj")
	id := strings.Trim(idUnsafe.ReplaceAllString(base, "-"), "-._")
	if id == "" {
		return "imported"
	}
	if len(id) > 128 {
		id = id[:128]
	}
	return id
}
