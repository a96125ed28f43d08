package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// Terminal is implemented by sandboxes that can start a process on a
// pseudo-terminal. A shell started there is interactive: it has job
// control (bash prints "[1] 1234" for a background job), and stdout and
// stderr reach the caller merged, as a terminal shows them. The ROCK
// sandbox API's sessions (package server/rock) run on it. Callers find it
// with a type assertion on their Sandbox.
type Terminal interface {
	// StartTerminal starts req.Argv on a new terminal, as the session
	// leader with the terminal as its controlling terminal.
	StartTerminal(ctx context.Context, req TerminalRequest) (TerminalProcess, error)
}

// TerminalRequest is a process to start on a terminal.
type TerminalRequest struct {
	// Argv is the program and its arguments (not shell source).
	Argv []string
	// Env is added to the sandbox's environment.
	Env map[string]string
	// Cwd is where the process starts; empty means the workdir.
	Cwd string
	// Rows and Cols size the terminal; zero means 24 by 80.
	Rows, Cols uint16
}

// TerminalProcess is the caller's end of a terminal: Read returns what the
// process wrote to it (with the terminal's own echo and line endings),
// Write types into it (a "\x03" is Ctrl-C: SIGINT to the foreground job).
// Read returns io.EOF once the process is gone and the terminal closed.
type TerminalProcess interface {
	io.ReadWriter
	// Close hangs the terminal up and releases it. The process gets
	// SIGHUP where the backend owns the terminal (local); elsewhere the
	// caller ends it first (for example by killing it from an Exec).
	Close() error
}

// ErrNoTerminal is returned by StartTerminal when the sandbox cannot
// provide a terminal.
var ErrNoTerminal = errors.New("no terminal")

// TerminalSize returns req's size with the defaults applied.
func (req TerminalRequest) TerminalSize() (rows, cols uint16) {
	rows, cols = req.Rows, req.Cols
	if rows == 0 {
		rows = 24
	}
	if cols == 0 {
		cols = 80
	}
	return rows, cols
}

// Check reports a request no backend can start (an empty argv), naming
// the sandbox id.
func (req TerminalRequest) Check(id string) error {
	if len(req.Argv) == 0 {
		return fmt.Errorf("terminal in sandbox %s: %w: empty argv", id, ErrInvalidSpec)
	}
	return nil
}
