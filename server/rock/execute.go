package rock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// executeBody is execute's request (Command).
type executeBody struct {
	SandboxID string            `json:"sandbox_id"`
	Command   json.RawMessage   `json:"command"`
	Timeout   *float64          `json:"timeout"`
	Cwd       *string           `json:"cwd"`
	Env       map[string]string `json:"env"`
}

// executeTimeout is ROCK's default for execute.
const executeTimeout = 1200 * time.Second

// execute runs a command outside any session, in a fresh shell: a list
// is an argv (quoted, never re-split), a string shell source. stdout and
// stderr come back apart (stderr through a file in the sandbox); a
// non-zero exit is still a Success.
func (h *Handler) execute(r *http.Request) (any, *failure) {
	var body executeBody
	if f := decodeBody(r, &body); f != nil {
		return nil, f
	}
	script, f := commandScript(body.Command)
	if f != nil {
		return nil, f
	}
	timeout := executeTimeout
	if t := body.Timeout; t != nil && *t > 0 {
		timeout = time.Duration(*t * float64(time.Second))
	}
	b, f := h.box(body.SandboxID)
	if f != nil {
		return nil, f
	}
	defer b.touch()
	sep := "__rbx_stderr_" + randomHex(8) + "__"
	errFile := "/tmp/.rbx-" + randomHex(8) + ".err"
	wrapped := fmt.Sprintf("{ %s\n} 2>%s; __rbx_s=$?; printf '\\n%s\\n'; cat %s 2>/dev/null; rm -f %s; exit $__rbx_s",
		script, errFile, sep, errFile, errFile)
	req := sandbox.ExecRequest{Command: wrapped, Timeout: timeout, Env: body.Env, Mode: sandbox.ModeExec}
	if body.Cwd != nil {
		req.Cwd = *body.Cwd
	}
	res, err := b.lease.Sandbox().Exec(r.Context(), req)
	if err != nil {
		return nil, failed("execute command failed", err.Error())
	}
	if res.TimedOut {
		return nil, failed("execute command failed", fmt.Sprintf("Timeout (%ss) exceeded while running command", secs(timeout)))
	}
	stdout, stderr, _ := bytes.Cut(res.Output, []byte("\n"+sep+"\n"))
	code := res.ExitCode
	return map[string]any{"stdout": backslashReplace(stdout), "stderr": backslashReplace(stderr), "exit_code": code}, nil
}

// commandScript renders execute's command as shell source.
func commandScript(raw json.RawMessage) (string, *failure) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if strings.TrimSpace(s) == "" {
			return "", invalid("command: must not be empty")
		}
		return s, nil
	}
	var argv []string
	if err := json.Unmarshal(raw, &argv); err != nil || len(argv) == 0 {
		return "", invalid("command: expected a string or a non-empty list of strings")
	}
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = session.Quote(a)
	}
	return strings.Join(q, " "), nil
}
