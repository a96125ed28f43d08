// Package trajectory defines recorded tool-call trajectories: an ordered
// list of steps, each one action with its recorded observation.
package trajectory

import (
	"encoding/json"

	"github.com/rbx-sandbox/rbx/task"
)

// Trajectory is one recorded episode of a task.
type Trajectory struct {
	// ID names the trajectory.
	ID string `json:"id"`
	// Task is the task's id, or a path to its file relative to the
	// trajectory file.
	Task string `json:"task"`
	// Vars are initial values for {{vars.NAME}} references.
	Vars map[string]string `json:"vars,omitempty"`
	// Steps are the recorded actions, in order.
	Steps []Step `json:"steps"`
	// Messages holds chat messages that precede the first step (system
	// prompt, instruction) as the policy saw them.
	Messages []json.RawMessage `json:"messages,omitempty"`

	// Path is the file it was loaded from; Line its line in a JSONL file (1-based, 0 for JSON).
	Path string `json:"-"`
	Line int    `json:"-"`
}

// Kind is an action kind.
type Kind string

// Action kinds (docs/formats.md).
const (
	KindShell     Kind = "shell"
	KindWriteFile Kind = "write_file"
	KindReadFile  Kind = "read_file"
	KindEditFile  Kind = "edit_file"
	KindHTTP      Kind = "http"
	KindNoop      Kind = "noop"
	// KindKeys types keystrokes into the sandbox's terminal (a
	// Terminus-style agent's action; docs/formats.md, "keys").
	KindKeys Kind = "keys"
)

// Kinds lists every action kind, in documentation order.
var Kinds = []Kind{KindShell, KindWriteFile, KindReadFile, KindEditFile, KindHTTP, KindNoop, KindKeys}

// Step is one action with its recorded observation. The action's fields sit
// at the top level of the step object, next to "action".
type Step struct {
	Action Kind `json:"action"`

	// shell
	Command string            `json:"command,omitempty"`
	Timeout task.Duration     `json:"timeout,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	Env     map[string]string `json:"env,omitempty"`

	// write_file, read_file, edit_file
	Path       string  `json:"path,omitempty"`
	Content    *string `json:"content,omitempty"`
	ContentB64 string  `json:"content_b64,omitempty"`
	Mode       string  `json:"mode,omitempty"` // octal, e.g. "0755"
	Range      *Range  `json:"range,omitempty"`
	Old        *string `json:"old,omitempty"`
	New        *string `json:"new,omitempty"`
	InsertLine *int    `json:"insert_line,omitempty"`
	Text       *string `json:"text,omitempty"`
	// All replaces every occurrence of Old (edit_file): Claude Code's
	// Edit with replace_all. Without it Old must occur exactly once.
	All bool `json:"all,omitempty"`

	// keys
	// Keys are typed into the terminal as tmux's send-keys reads one
	// argument: a key name alone (C-c, Escape, Enter, Up, F1…) is that
	// key, anything else literal text where "\n" is Enter; "" types
	// nothing (the agent waited).
	Keys string `json:"keys,omitempty"`
	// Duration is how long the agent waited for the terminal after
	// typing: replay waits for the recorded output instead, and gives up
	// a margin after it.
	Duration task.Duration `json:"duration,omitempty"`

	// http
	Method  string            `json:"method,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    *string           `json:"body,omitempty"`
	// Capture binds variables to fields of the JSON response: var → dotted path ("data.code", "items.0.id").
	Capture map[string]string `json:"capture,omitempty"`
	// Retry says whether the request is sent again after a failure or a
	// 5xx/429 answer; unset, only idempotent methods (GET, HEAD, OPTIONS,
	// PUT, DELETE) are, so a POST that issues a one-time code is sent once.
	Retry *bool `json:"retry,omitempty"`

	// noop
	Note string `json:"note,omitempty"`

	// Observation is what the step produced when recorded.
	Observation *Observation `json:"observation,omitempty"`
	// Volatile steps depend on time or the outside world; they and every
	// later step are never cached, and their output is not compared.
	Volatile bool `json:"volatile,omitempty"`
	// Checkpoint false forbids resetting right after this step.
	Checkpoint *bool `json:"checkpoint,omitempty"`
	// Compare overrides the replay's output comparison for this step:
	// "exact", "normalized", "normalized_hex" (normalized, and hex strings
	// masked: set by pinning where they varied between runs) or "ignore".
	Compare string `json:"compare,omitempty"`
	// Tokens counts the policy tokens of this turn.
	Tokens int `json:"tokens,omitempty"`
	// Intervened marks an action an intervener chose, not the policy
	// (rollout-time intervention, docs/rti.md): a trainer masks its tokens
	// out of the policy loss.
	Intervened bool `json:"intervened,omitempty"`
	// Messages are the original chat messages this step came from (the
	// assistant tool call and its tool result), for prefix prefill.
	Messages []json.RawMessage `json:"messages,omitempty"`
}

// Range selects lines of a read_file, 1-based and inclusive; End 0 means to the end.
type Range struct {
	Start int `json:"start"`
	End   int `json:"end,omitempty"`
}

// Observation is what an action produced: recorded in a trajectory
// (output, exit code, HTTP status), pinned by `rbx prefilter` from a kept
// trajectory's verified runs (exit code, output digest), or observed live
// when serve or probe carries out an agent's action (all fields).
type Observation struct {
	Output   string `json:"output,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
	// Status is the HTTP status of an http step.
	Status int `json:"status,omitempty"`
	// OutputSHA256 is the lowercase hex SHA-256 of the output as the
	// step's comparison sees it (normalised unless "compare" is "exact").
	// When set, replay compares it rather than Output.
	OutputSHA256 string `json:"output_sha256,omitempty"`
	// Pinned marks an observation measured by prefilter on the verified
	// runs, not recorded by the source.
	Pinned bool `json:"pinned,omitempty"`
	// Varied marks a pinned step whose output differed between the
	// verified runs (its comparison was loosened): the state after it may
	// differ from run to run, so the prefix cache never reuses it.
	Varied bool `json:"varied,omitempty"`

	// Truncated: Output is an excerpt of OutputBytes bytes (live only).
	Truncated   bool  `json:"truncated,omitempty"`
	OutputBytes int64 `json:"output_bytes,omitempty"`
	// TimedOut: the action ran past its timeout; recorded (an agent's
	// tool killed the command at the step's timeout), replay expects the
	// same or an earlier end.
	TimedOut bool `json:"timed_out,omitempty"`
	// TimeoutCapped: the action asked for a timeout above the task's
	// limits.step_timeout and ran with the limit (live only).
	TimeoutCapped bool `json:"timeout_capped,omitempty"`
	// SessionLost (live only): the action ended the session shell (exit,
	// errexit, a killed process group) or ran after it had ended; the
	// shell's state is gone and the episode cannot go on.
	SessionLost bool `json:"session_lost,omitempty"`
	// Error says why the action could not be carried out: edit target
	// absent, undefined variable, service not declared (live only).
	Error      string  `json:"error,omitempty"`
	DurationMS float64 `json:"duration_ms,omitempty"`
}

// Recorded returns the part of o a trajectory records: output, exit code,
// HTTP status and pinned digest.
func (o Observation) Recorded() *Observation {
	return &Observation{Output: o.Output, ExitCode: o.ExitCode, Status: o.Status, OutputSHA256: o.OutputSHA256, Pinned: o.Pinned, Varied: o.Varied}
}

// IsCheckpoint reports whether resetting right after step i is allowed.
func (s Step) IsCheckpoint() bool { return s.Checkpoint == nil || *s.Checkpoint }

// Len is the number of steps, T.
func (t *Trajectory) Len() int { return len(t.Steps) }

// ValidCheckpoint reports whether k names a state the trajectory may be reset
// to: 0 ≤ k ≤ T, and the step before k does not forbid it.
func (t *Trajectory) ValidCheckpoint(k int) bool {
	if k < 0 || k > len(t.Steps) {
		return false
	}
	return k == 0 || t.Steps[k-1].IsCheckpoint()
}
