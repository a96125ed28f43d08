package replayer

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// editFile applies a str_replace (old → new, old must occur exactly once) or
// an insertion after line insert_line (0 = at the top). The file keeps its mode.
func (run *Run) editFile(ctx context.Context, s trajectory.Step) error {
	path, err := run.expand("path", s.Path)
	if err != nil {
		return err
	}
	data, err := run.sb.ReadFile(ctx, path)
	if errors.Is(err, sandbox.ErrNotFound) && !sandbox.IsFileRefused(err) {
		return fmt.Errorf("%w: edit %s: file does not exist", errAction, path)
	}
	if err != nil {
		return err
	}
	edited, err := run.applyEdit(string(data), s)
	if err != nil {
		return mismatchError{path: path, err: err}
	}
	return asEdit(run.sb.WriteFile(ctx, path, []byte(edited), 0))
}

// mismatchError is an edit the file did not allow: its text not there
// once, its line outside the file. Nothing was written; the action
// failed (errAction), as the agents' editors fail ("No replacement was
// performed"), and a recording of that failure expects it.
type mismatchError struct {
	path string
	err  error
}

func (e mismatchError) Error() string {
	return fmt.Sprintf("%v: edit %s: %v", errAction, e.path, e.err)
}
func (e mismatchError) Unwrap() error        { return e.err }
func (e mismatchError) Is(target error) bool { return target == errAction }

// asEdit names a refusal of an edit's write an edit's.
func asEdit(err error) error {
	if fe, ok := errors.AsType[*sandbox.FileError](err); ok && fe.Op == "write" {
		e := *fe
		e.Op = "edit"
		return &e
	}
	return err
}

func (run *Run) applyEdit(content string, s trajectory.Step) (string, error) {
	if s.Old != nil {
		old, err := run.expand("old", *s.Old)
		if err != nil {
			return "", err
		}
		repl := ""
		if s.New != nil {
			if repl, err = run.expand("new", *s.New); err != nil {
				return "", err
			}
		}
		if s.All {
			return ReplaceAll(content, old, repl)
		}
		return ReplaceOnce(content, old, repl)
	}
	if s.Range != nil && s.Text != nil {
		text, err := run.expand("text", *s.Text)
		if err != nil {
			return "", err
		}
		return ReplaceLines(content, s.Range.Start, s.Range.End, text)
	}
	if s.InsertLine == nil || s.Text == nil {
		return "", errors.New("expected old/new, insert_line/text or range/text")
	}
	text, err := run.expand("text", *s.Text)
	if err != nil {
		return "", err
	}
	return InsertAfter(content, *s.InsertLine, text)
}

// ReplaceOnce replaces the single occurrence of old in content; zero or
// several occurrences are an error, as in str_replace editors.
func ReplaceOnce(content, old, repl string) (string, error) {
	if old == "" {
		return "", errors.New("old text is empty")
	}
	switch n := strings.Count(content, old); n {
	case 0:
		return "", fmt.Errorf("old text %s not found", quoteExcerpt(old))
	case 1:
		return strings.Replace(content, old, repl, 1), nil
	default:
		return "", fmt.Errorf("old text %s is ambiguous: it occurs %d times", quoteExcerpt(old), n)
	}
}

// ReplaceAll replaces every occurrence of old in content; none is an
// error, as in Claude Code's Edit with replace_all.
func ReplaceAll(content, old, repl string) (string, error) {
	if old == "" {
		return "", errors.New("old text is empty")
	}
	if !strings.Contains(content, old) {
		return "", fmt.Errorf("old text %s not found", quoteExcerpt(old))
	}
	return strings.ReplaceAll(content, old, repl), nil
}

// ReplaceLines replaces lines start to end (1-based, inclusive) with text,
// as SWE-agent's windowed "edit start:end" does: text "" deletes them, a
// text without a final newline gets one. Lines past the end of the file
// are an error.
func ReplaceLines(content string, start, end int, text string) (string, error) {
	lines := strings.SplitAfter(content, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if start < 1 || end < start || end > len(lines) {
		return "", fmt.Errorf("lines %d:%d: the file has %d lines", start, end, len(lines))
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if end == len(lines) && !strings.HasSuffix(lines[end-1], "\n") && strings.HasSuffix(text, "\n") {
		text = strings.TrimSuffix(text, "\n") // the file had no final newline: it keeps none
	}
	return strings.Join(lines[:start-1], "") + text + strings.Join(lines[end:], ""), nil
}

// InsertAfter inserts text after line n (1-based; 0 inserts at the top).
func InsertAfter(content string, n int, text string) (string, error) {
	lines := strings.SplitAfter(content, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if n < 0 || n > len(lines) {
		return "", fmt.Errorf("insert_line %d: the file has %d lines", n, len(lines))
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if n > 0 && !strings.HasSuffix(lines[n-1], "\n") {
		lines[n-1] += "\n"
	}
	head := strings.Join(lines[:n], "")
	return head + text + strings.Join(lines[n:], ""), nil
}
