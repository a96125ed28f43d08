// Package sandbox declares the Runtime interface every execution backend
// implements (docker, local, containerd and kubernetes), and the
// specification and result types they share.
package sandbox

import (
	"context"
	"io/fs"
	"time"
)

// Runtime creates and finds sandboxes. Backends live in their own packages
// (sandbox/docker, sandbox/local) and are chosen explicitly by the caller.
type Runtime interface {
	// Name is the backend's short name ("docker", "local").
	Name() string
	// Create starts a sandbox from spec. On failure it removes whatever it
	// created before returning the error.
	Create(ctx context.Context, spec Spec) (Sandbox, error)
	// Open attaches to an existing sandbox by id (for example one kept by
	// `rbx replay --keep`).
	Open(ctx context.Context, id string) (Sandbox, error)
	// List returns the sandboxes whose labels include every pair in selector.
	List(ctx context.Context, selector map[string]string) ([]Info, error)
	// Remove deletes a sandbox by id, whether or not this process created it.
	// Removing a sandbox that does not exist returns an error wrapping ErrNotFound.
	Remove(ctx context.Context, id string) error
	// Close releases the runtime's own resources (connections); it does not
	// remove sandboxes.
	Close() error
}

// Sandbox is one isolated environment: a container, or a private directory
// for the local backend.
type Sandbox interface {
	// ID identifies the sandbox within its runtime.
	ID() string
	// Exec runs one command. A command that exits non-zero is not an error:
	// the exit code is in the result. A step timeout is not an error either:
	// the result has TimedOut set and carries the partial output. A step
	// that ends the session shell is not an error either: the result has
	// SessionLost set, and later session steps return a *SessionLostError.
	// Errors are reserved for the sandbox or engine failing, a lost session,
	// and a cancelled ctx (an error wrapping ctx.Err(), never TimedOut).
	Exec(ctx context.Context, req ExecRequest) (ExecResult, error)
	// WriteFile creates parent directories and writes data at path (absolute,
	// or relative to the workdir). Mode 0 keeps the mode of an existing file
	// and means 0644 for a new one.
	WriteFile(ctx context.Context, path string, data []byte, mode fs.FileMode) error
	// WriteFiles writes every file in one operation, creating missing
	// parent directories (existing directories keep their mode and owner).
	// Unlike WriteFile it never goes through the session shell or runs any
	// program in the sandbox (docker: the engine's archive API; local:
	// direct writes under the root), so what a step did to its shell, its
	// PATH or the image's tools cannot alter the files: staging a task's
	// files and the verifier's goes through it.
	WriteFiles(ctx context.Context, files []File) error
	// ReadFile returns the content at path (absolute, or relative to the
	// workdir). A missing file returns an error wrapping ErrNotFound.
	ReadFile(ctx context.Context, path string) ([]byte, error)
	// Remove destroys the sandbox and everything in it. It is idempotent.
	Remove(ctx context.Context) error
}

// Mode is how shell commands run.
type Mode string

const (
	// ModeSession keeps one bash (or sh) process per sandbox: the working
	// directory, exported variables and background jobs persist between steps.
	ModeSession Mode = "session"
	// ModeExec starts a fresh shell for every command.
	ModeExec Mode = "exec"
)

// Valid reports whether m is a known mode.
func (m Mode) Valid() bool { return m == ModeSession || m == ModeExec }

// Info describes a sandbox found by List.
type Info struct {
	ID     string
	Name   string
	Image  string
	State  string
	Labels map[string]string
	// Annotations are the sandbox's Spec.Annotations plus those the backend
	// adds (AnnotationTask...).
	Annotations map[string]string
	Created     time.Time
}

// ExecRequest is one command to run in a sandbox.
type ExecRequest struct {
	// Command is shell source, run by bash where the image has it, sh otherwise.
	Command string
	// Timeout bounds the command; zero means the sandbox's default step timeout.
	Timeout time.Duration
	// Cwd, when set, runs the command in that directory without changing the
	// session's own directory.
	Cwd string
	// Env adds variables for this command only.
	Env map[string]string
	// Mode overrides the sandbox's mode for this command; empty keeps it.
	// Verifiers run with ModeExec so the agent's shell state cannot leak in.
	Mode Mode
}

// ExecResult is what a command produced.
type ExecResult struct {
	// Output is stdout and stderr interleaved, as a terminal shows them, cut
	// at the sandbox's output cap.
	Output []byte
	// ExitCode is the command's status; 124 when it timed out (as timeout(1)).
	ExitCode int
	// TimedOut is set when the step timeout expired; Output is then partial.
	TimedOut bool
	// Truncated is set when the output exceeded the cap; OutputBytes has the
	// full size.
	Truncated bool
	// OutputBytes counts every byte the command wrote, kept or not.
	OutputBytes int64
	// SessionLost is set when the session shell ended during this step: the
	// step ran `exit`, failed under `set -e`, killed the shell's process
	// group, or timed out in a way that could only be stopped by killing the
	// shell. ExitCode is then the shell's own status (128+n for signal n).
	// The session's cwd, exports, functions and jobs are gone: later session
	// steps fail with a *SessionLostError until the caller reopens the
	// session explicitly (SessionReopener). Never set in exec mode.
	SessionLost bool
	// OOMKilled is set when a process of this command was killed by the
	// kernel OOM killer inside the sandbox's memory limit (the exit code is
	// then usually 137). The sandbox itself survives; when it does not, Exec
	// returns a *GoneError with cause CauseOOMKilled instead.
	OOMKilled bool
	// Duration is the wall time of the command as seen by the orchestrator.
	Duration time.Duration
}

// ExitCodeTimeout is the exit code reported for a command that timed out.
const ExitCodeTimeout = 124

// SessionReopener is implemented by sandboxes whose lost session can be
// replaced. Reopening is never automatic: the caller asks for it, knowing
// that the new shell starts from the sandbox's workdir and Spec.Env only.
type SessionReopener interface {
	// Reopen discards the current session shell (lost or not) and starts a
	// fresh one; later session steps run in it.
	Reopen(ctx context.Context) error
}

// File is one file for Sandbox.WriteFiles.
type File struct {
	// Path is absolute, or relative to the workdir.
	Path string
	Data []byte
	// Mode 0 means 0644.
	Mode fs.FileMode
}
