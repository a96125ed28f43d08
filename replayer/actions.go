package replayer

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// outcome is the live observation of one step.
type outcome struct {
	exitCode  int
	output    string
	hasOutput bool // shell, read_file and http produce output to compare
	timedOut  bool
	truncated bool
	lost      bool // the step ended the session shell
	bytes     int64
	timeout   time.Duration
	body      []byte // http response body, for capture
}

// errAction marks failures of the action itself (as opposed to the sandbox).
var errAction = errors.New("action failed")

func reasonOf(err error) reason.Reason {
	if errors.Is(err, errAction) || errors.Is(err, trajectory.ErrUndefined) {
		return reason.Action
	}
	if errors.Is(err, sandbox.ErrSessionLost) {
		return reason.SessionLost
	}
	return reason.Infra
}

func (run *Run) exec(ctx context.Context, s trajectory.Step) (outcome, error) {
	switch s.Action {
	case trajectory.KindShell:
		return run.shell(ctx, s)
	case trajectory.KindWriteFile:
		return fileOutcome(outcome{}, run.writeFile(ctx, s))
	case trajectory.KindReadFile:
		return fileOutcome(run.readFile(ctx, s))
	case trajectory.KindEditFile:
		return editOutcome(fileOutcome(outcome{}, run.editFile(ctx, s)))
	case trajectory.KindHTTP:
		return run.http(ctx, s)
	case trajectory.KindNoop:
		return outcome{}, nil
	case trajectory.KindKeys:
		return run.keys(ctx, s)
	}
	return outcome{}, fmt.Errorf("%w: unknown action %q", errAction, s.Action)
}

// expand resolves {{vars.X}} and {{services.X}} in a step field.
func (run *Run) expand(field, s string) (string, error) {
	v, err := trajectory.Expand(s, run.vars, run.services)
	if err != nil {
		return "", fmt.Errorf("%s: %w", field, err)
	}
	return v, nil
}

func (run *Run) shell(ctx context.Context, s trajectory.Step) (outcome, error) {
	cmd, err := run.expand("command", s.Command)
	if err != nil {
		return outcome{}, err
	}
	req := sandbox.ExecRequest{Command: cmd, Timeout: s.Timeout.D(), Cwd: s.Cwd}
	if req.Timeout == 0 {
		req.Timeout = run.task.Limits.StepTimeout.D()
	}
	if req.Timeout == 0 {
		req.Timeout = sandbox.DefaultStepTimeout
	}
	if len(s.Env) > 0 {
		req.Env = make(map[string]string, len(s.Env))
		for k, v := range s.Env {
			if req.Env[k], err = run.expand("env."+k, v); err != nil {
				return outcome{}, err
			}
		}
	}
	res, err := run.sb.Exec(ctx, req)
	if err != nil {
		return outcome{}, err
	}
	return outcome{exitCode: res.ExitCode, output: string(res.Output), hasOutput: true, timedOut: res.TimedOut,
		truncated: res.Truncated, lost: res.SessionLost, bytes: res.OutputBytes, timeout: req.Timeout}, nil
}

func (run *Run) writeFile(ctx context.Context, s trajectory.Step) error {
	path, err := run.expand("path", s.Path)
	if err != nil {
		return err
	}
	var data []byte
	if s.Content != nil {
		c, err := run.expand("content", *s.Content)
		if err != nil {
			return err
		}
		data = []byte(c)
	} else if data, err = base64.StdEncoding.DecodeString(s.ContentB64); err != nil {
		return fmt.Errorf("%w: content_b64: %v", errAction, err)
	}
	mode := fs.FileMode(0)
	if s.Mode != "" {
		m, err := strconv.ParseUint(s.Mode, 8, 32)
		if err != nil {
			return fmt.Errorf("%w: mode %q: expected octal such as \"0644\"", errAction, s.Mode)
		}
		mode = fs.FileMode(m)
	}
	return run.sb.WriteFile(ctx, path, data, mode)
}

func (run *Run) readFile(ctx context.Context, s trajectory.Step) (outcome, error) {
	path, err := run.expand("path", s.Path)
	if err != nil {
		return outcome{}, err
	}
	data, err := run.sb.ReadFile(ctx, path)
	if errors.Is(err, sandbox.ErrNotFound) && !sandbox.IsFileRefused(err) {
		return outcome{}, fmt.Errorf("%w: read %s: %v", errAction, path, err)
	}
	if err != nil {
		return outcome{}, err
	}
	out := string(data)
	if s.Range != nil {
		out = lineRange(out, s.Range.Start, s.Range.End)
	}
	return outcome{output: out, hasOutput: true, bytes: int64(len(out))}, nil
}

// lineRange returns lines [start, end] (1-based, inclusive; end 0 = to the end).
func lineRange(s string, start, end int) string {
	lines := strings.SplitAfter(s, "\n")
	if start < 1 {
		start = 1
	}
	if end == 0 || end > len(lines) {
		end = len(lines)
	}
	if start > end {
		return ""
	}
	return strings.Join(lines[start-1:end], "")
}
