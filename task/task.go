// Package task defines what an environment is: image, workdir, limits,
// network policy, the services HTTP actions may reach, the files the agent
// starts with, and the verifier that turns a final state into a reward.
package task

// Task is one environment definition, loaded from YAML or JSON.
type Task struct {
	// ID names the task; [a-z0-9][a-z0-9._-]*.
	ID string `json:"id"`
	// Instruction is what the agent is asked to do.
	Instruction string `json:"instruction"`
	// Image is a local image reference. With Build too, Image is the tag of
	// the image built from Build (by rbx import), and Build is how to rebuild
	// it on another engine: the context travels with the task.
	Image string `json:"image,omitempty"`
	// Build describes an image built from a Dockerfile next to the task.
	Build *Build `json:"build,omitempty"`
	// Workdir is the absolute directory the agent works in (default /workspace).
	Workdir string `json:"workdir,omitempty"`
	// Env is set for every command.
	Env map[string]string `json:"env,omitempty"`
	// Shell is "session" (default), "exec", or "terminal": the agent acts
	// by keystrokes (keys) into a terminal, and shell steps (the
	// verifier's) run in a session.
	Shell string `json:"shell,omitempty"`
	// Terminal sizes the terminal keys steps type into (default 40 rows
	// by 160 columns).
	Terminal *TerminalSize `json:"terminal,omitempty"`
	// Limits bound resources and time.
	Limits Limits `json:"limits,omitempty"`
	// Network is "none" (default) or "bridge".
	Network string `json:"network,omitempty"`
	// User runs the agent's commands and the verifier as "uid[:gid]" or
	// "name[:group]" of the image (default: the image's user, root for
	// rbx's images); the workdir and staged files become theirs.
	User string `json:"user,omitempty"`
	// ReadOnlyRoot mounts the root filesystem read-only: the workdir and
	// /tmp, each a tmpfs of limits.disk, are the only writable paths.
	ReadOnlyRoot bool `json:"read_only_root,omitempty"`
	// CapAdd grants Linux capabilities beyond the default set (CHOWN,
	// FOWNER, FSETID, KILL, SETGID, SETUID), e.g. DAC_OVERRIDE.
	CapAdd []string `json:"cap_add,omitempty"`
	// Services maps a name to the base URL that http actions may call as
	// {{services.NAME}}; nothing else may be called.
	Services map[string]string `json:"services,omitempty"`
	// Files are copied into the sandbox when it is created (visible to the
	// agent): source path relative to the task file → destination (absolute,
	// or relative to the workdir). A source ending in / is a directory.
	Files map[string]string `json:"files,omitempty"`
	// Verify computes the reward.
	Verify Verify `json:"verify"`
	// Rubric is optional graded evidence.
	Rubric []RubricItem `json:"rubric,omitempty"`

	// Dir is the directory the task was loaded from; Files and Build paths
	// are relative to it.
	Dir string `json:"-"`
	// Path is the file the task was loaded from.
	Path string `json:"-"`
}

// Build is an image built from a Dockerfile.
type Build struct {
	Context    string `json:"context"`
	Dockerfile string `json:"dockerfile,omitempty"`
}

// Limits bound a sandbox.
type Limits struct {
	CPUs           float64  `json:"cpus,omitempty"`
	Memory         ByteSize `json:"memory,omitempty"`
	Pids           int64    `json:"pids,omitempty"`
	StepTimeout    Duration `json:"step_timeout,omitempty"`
	EpisodeTimeout Duration `json:"episode_timeout,omitempty"`
	// Output caps the bytes kept per step.
	Output ByteSize `json:"output,omitempty"`
	// Disk bounds the writable layer where the storage driver supports it,
	// and each tmpfs of a read-only root (docs/isolation.md).
	Disk ByteSize `json:"disk,omitempty"`
	// FileSize is the fsize ulimit: no file grows past it.
	FileSize ByteSize `json:"file_size,omitempty"`
	// NoFile is the nofile ulimit: open descriptors per process.
	NoFile int64 `json:"nofile,omitempty"`
}

// Verify is the task's verifier: its files are copied in only at verify
// time, so the agent never sees them; exit status 0 is success.
type Verify struct {
	Command string            `json:"command"`
	Files   map[string]string `json:"files,omitempty"`
	Timeout Duration          `json:"timeout,omitempty"`
}

// RubricItem is one piece of graded evidence: a command whose success earns Weight.
type RubricItem struct {
	ID      string  `json:"id"`
	Command string  `json:"command"`
	Weight  float64 `json:"weight,omitempty"`
}

// ShellTerminal is the shell of tasks whose agent types into a terminal
// (a Terminus-style policy: its one tool is keys).
const ShellTerminal = "terminal"

// TypesKeys reports whether t's agent acts by keystrokes.
func (t *Task) TypesKeys() bool { return t.Shell == ShellTerminal }

// TerminalSize is the size of a task's terminal, in characters.
type TerminalSize struct {
	Rows int `json:"rows"`
	Cols int `json:"cols"`
}

// Default terminal size: Terminus' tmux window.
const (
	DefaultTerminalRows = 40
	DefaultTerminalCols = 160
)

// TerminalRows and TerminalCols are the size of t's terminal (keys
// steps): its terminal field's, else the default.
func (t *Task) TerminalRows() int {
	if t.Terminal != nil && t.Terminal.Rows > 0 {
		return t.Terminal.Rows
	}
	return DefaultTerminalRows
}

// TerminalCols: see TerminalRows.
func (t *Task) TerminalCols() int {
	if t.Terminal != nil && t.Terminal.Cols > 0 {
		return t.Terminal.Cols
	}
	return DefaultTerminalCols
}

// SandboxMode is the sandbox session mode of t's shell steps.
func (t *Task) SandboxMode() string {
	if t.TypesKeys() {
		return "session"
	}
	return t.Shell
}
