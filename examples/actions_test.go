package examples_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// The actions of a step, executed against a hostSandbox.

// expand replaces {{services.NAME}} and {{vars.NAME}}.
func (sb *hostSandbox) expand(s string) string {
	for k, v := range sb.services {
		s = strings.ReplaceAll(s, "{{services."+k+"}}", v)
	}
	for k, v := range sb.vars {
		s = strings.ReplaceAll(s, "{{vars."+k+"}}", v)
	}
	return s
}

// outcome is what one step produced; code is the exit code, or the HTTP status.
type outcome struct {
	output    string
	code      int
	hasOutput bool
}

func (sb *hostSandbox) run(t *testing.T, s trajectory.Step) outcome {
	t.Helper()
	switch s.Action {
	case trajectory.KindShell:
		res, err := sb.shell.Run(context.Background(), sandbox.ExecRequest{
			Command: sb.expand(s.Command), Timeout: 60 * time.Second, Cwd: s.Cwd, Env: s.Env})
		require.NoError(t, err)
		return outcome{output: string(res.Output), code: res.ExitCode, hasOutput: true}
	case trajectory.KindWriteFile:
		return sb.writeFile(t, s)
	case trajectory.KindReadFile:
		return sb.readFile(t, s)
	case trajectory.KindEditFile:
		return sb.editFile(t, s)
	case trajectory.KindHTTP:
		return sb.http(t, s)
	case trajectory.KindNoop:
		return outcome{}
	}
	t.Fatalf("unknown action %q", s.Action)
	return outcome{}
}

func (sb *hostSandbox) writeFile(t *testing.T, s trajectory.Step) outcome {
	t.Helper()
	require.NotNil(t, s.Content, "write_file %s: content", s.Path)
	mode := int64(0o644)
	if s.Mode != "" {
		var err error
		mode, err = strconv.ParseInt(s.Mode, 8, 32)
		require.NoError(t, err)
	}
	p := sb.hostPath(t, s.Path)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(sb.expand(*s.Content)), os.FileMode(mode)))
	require.NoError(t, os.Chmod(p, os.FileMode(mode)))
	return outcome{}
}

func (sb *hostSandbox) readFile(t *testing.T, s trajectory.Step) outcome {
	t.Helper()
	data, err := os.ReadFile(sb.hostPath(t, s.Path))
	if err != nil {
		return outcome{output: err.Error(), code: 1, hasOutput: true}
	}
	out := string(data)
	if s.Range != nil {
		lines := strings.SplitAfter(out, "\n")
		end := s.Range.End
		if end == 0 || end > len(lines) {
			end = len(lines)
		}
		out = strings.Join(lines[s.Range.Start-1:end], "")
	}
	return outcome{output: out, hasOutput: true}
}

func (sb *hostSandbox) editFile(t *testing.T, s trajectory.Step) outcome {
	t.Helper()
	p := sb.hostPath(t, s.Path)
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	src := string(data)
	switch {
	case s.Old != nil && s.New != nil:
		require.Equal(t, 1, strings.Count(src, *s.Old), "edit_file %s: old must occur exactly once", s.Path)
		src = strings.Replace(src, *s.Old, *s.New, 1)
	case s.InsertLine != nil && s.Text != nil:
		lines := strings.SplitAfter(src, "\n")
		require.LessOrEqual(t, *s.InsertLine, len(lines))
		src = strings.Join(lines[:*s.InsertLine], "") + *s.Text + strings.Join(lines[*s.InsertLine:], "")
	default:
		t.Fatalf("edit_file %s: expected old+new or insert_line+text", s.Path)
	}
	require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
	return outcome{}
}

func (sb *hostSandbox) http(t *testing.T, s trajectory.Step) outcome {
	t.Helper()
	var body io.Reader
	if s.Body != nil {
		body = strings.NewReader(sb.expand(*s.Body))
	}
	req, err := http.NewRequest(s.Method, sb.expand(s.URL), body)
	require.NoError(t, err)
	for k, v := range s.Headers {
		req.Header.Set(k, sb.expand(v))
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	if len(s.Capture) > 0 {
		var doc map[string]any
		require.NoError(t, json.Unmarshal(data, &doc))
		for name, field := range s.Capture {
			v, ok := doc[field] // the examples capture top-level fields only
			require.True(t, ok, "capture %s: field %q missing in %s", name, field, data)
			sb.vars[name] = fmt.Sprint(v)
		}
	}
	return outcome{output: string(data), code: resp.StatusCode, hasOutput: true}
}
