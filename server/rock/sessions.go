package rock

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// createBody is create_session's request (CreateBashSessionRequest).
type createBody struct {
	SandboxID     string            `json:"sandbox_id"`
	SessionType   *string           `json:"session_type"`
	Session       *string           `json:"session"`
	StartupSource []string          `json:"startup_source"`
	EnvEnable     bool              `json:"env_enable"`
	Env           map[string]string `json:"env"`
	RemoteUser    *string           `json:"remote_user"`
}

// sessionName applies ROCK's defaults and checks the session type.
func sessionName(typ, name *string) (string, *failure) {
	if typ != nil && *typ != "bash" {
		return "", invalid(fmt.Sprintf("session_type %q: only bash sessions exist", *typ))
	}
	if name == nil {
		return "default", nil
	}
	if *name == "" {
		return "", invalid("session: must not be empty")
	}
	return *name, nil
}

func (h *Handler) createSession(r *http.Request) (any, *failure) {
	var body createBody
	if f := decodeBody(r, &body); f != nil {
		return nil, f
	}
	name, f := sessionName(body.SessionType, body.Session)
	if f != nil {
		return nil, f
	}
	if u := body.RemoteUser; u != nil && *u != "" && *u != "root" {
		return nil, failed("create session failed", fmt.Sprintf("remote_user %q: sessions run as the sandbox's user", *u))
	}
	for k := range body.Env {
		if !validEnvName(k) {
			return nil, invalid(fmt.Sprintf("env: %q is not a variable name", k))
		}
	}
	b, f := h.box(body.SandboxID)
	if f != nil {
		return nil, f
	}
	b.mu.Lock()
	if _, dup := b.sessions[name]; dup {
		b.mu.Unlock()
		return nil, failed("create session failed", fmt.Sprintf("session %s already exists", name))
	}
	b.sessions[name] = nil // reserved while it starts
	sb := b.lease.Sandbox()
	b.mu.Unlock()
	s, out, err := startBash(r.Context(), sb, sessionSpec{Name: name, EnvEnable: body.EnvEnable, Env: body.Env,
		Source: body.StartupSource, OutputCap: h.cfg.outputCap})
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil {
		delete(b.sessions, name)
		return nil, failed("create session failed", err.Error())
	}
	if cur, ok := b.sessions[name]; !ok || cur != nil { // the sandbox stopped meanwhile
		go s.hangUp()
		return nil, failed("create session failed", fmt.Sprintf("sandbox %s stopped while the session started", b.id))
	}
	b.sessions[name] = s
	return map[string]string{"output": out, "session_type": "bash"}, nil
}

// runBody is run_in_session's request (BashAction).
type runBody struct {
	SandboxID  string   `json:"sandbox_id"`
	ActionType *string  `json:"action_type"`
	Session    *string  `json:"session"`
	Command    *string  `json:"command"`
	Timeout    *float64 `json:"timeout"`
	Check      *string  `json:"check"`
}

// observation is BashObservation.
type observation struct {
	SessionType   string `json:"session_type"`
	Output        string `json:"output"`
	ExitCode      *int   `json:"exit_code"`
	FailureReason string `json:"failure_reason"`
	ExpectString  string `json:"expect_string"`
}

// runInSession runs a command in a session. check "raise" (the default)
// turns a non-zero exit into Failed, "silent" returns it, "ignore" returns
// no exit code. A syntax error, a timeout, an unknown session or a shell
// that exited are Failed whatever check says, as in ROCK (where they are
// the rocklet's exceptions: message null, the reason in error).
func (h *Handler) runInSession(r *http.Request) (any, *failure) {
	var body runBody
	if f := decodeBody(r, &body); f != nil {
		return nil, f
	}
	if body.ActionType != nil && *body.ActionType != "bash" {
		return nil, invalid(fmt.Sprintf("action_type %q: only bash actions exist", *body.ActionType))
	}
	name, f := sessionName(nil, body.Session)
	if f != nil {
		return nil, f
	}
	if body.Command == nil {
		return nil, invalid("command: field required")
	}
	check := "raise"
	if body.Check != nil {
		check = *body.Check
	}
	if check != "raise" && check != "silent" && check != "ignore" {
		return nil, invalid(fmt.Sprintf("check %q: expected silent, raise or ignore", check))
	}
	timeout := h.cfg.commandTimeout
	if t := body.Timeout; t != nil && *t > 0 {
		timeout = time.Duration(*t * float64(time.Second))
	}
	b, f := h.box(body.SandboxID)
	if f != nil {
		return nil, f
	}
	b.mu.Lock()
	s := b.sessions[name]
	b.mu.Unlock()
	if s == nil {
		return nil, failed("", fmt.Sprintf("session %s does not exist", pyRepr(name)))
	}
	cmd := *body.Command
	res, err := s.run(r.Context(), cmd, timeout)
	defer b.touch()
	var se *syntaxError
	switch {
	case errors.As(err, &se):
		return nil, failed("", fmt.Sprintf("Error (exit code 2) while checking bash command \n%s\n---- Stderr ----\n%s\n---- Stdout ----\n", pyRepr(cmd), se.Msg))
	case errors.Is(err, errTimeout):
		return nil, failed("", fmt.Sprintf("timeout after %v seconds while running command %s", secs(timeout), pyRepr(cmd)))
	case errors.Is(err, errSessionGone):
		h.dropSession(b, name, s)
		return nil, failed("", fmt.Sprintf("session %s ended: its shell exited (output: %s)", pyRepr(name), pyRepr(clip(res.Output, 2000))))
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return nil, failed("", fmt.Sprintf("command %s interrupted: %v", pyRepr(cmd), err))
	case err != nil:
		return nil, failed("", err.Error())
	}
	if check == "raise" && res.ExitCode != 0 {
		return nil, failed("", fmt.Sprintf("Command %s failed with exit code %d. Here is the output:\n%s", pyRepr(cmd), res.ExitCode, pyRepr(res.Output)))
	}
	obs := observation{SessionType: "bash", Output: res.Output}
	if check != "ignore" {
		code := res.ExitCode
		obs.ExitCode = &code
	}
	return obs, nil
}

// dropSession forgets s if it is still b's session name.
func (h *Handler) dropSession(b *box, name string, s *bashSession) {
	b.mu.Lock()
	if b.sessions[name] == s {
		delete(b.sessions, name)
	}
	b.mu.Unlock()
}

// closeBody is close_session's request.
type closeBody struct {
	SandboxID   string  `json:"sandbox_id"`
	SessionType *string `json:"session_type"`
	Session     *string `json:"session"`
}

func (h *Handler) closeSession(r *http.Request) (any, *failure) {
	var body closeBody
	if f := decodeBody(r, &body); f != nil {
		return nil, f
	}
	name, f := sessionName(body.SessionType, body.Session)
	if f != nil {
		return nil, f
	}
	b, f := h.box(body.SandboxID)
	if f != nil {
		return nil, f
	}
	b.mu.Lock()
	s := b.sessions[name]
	if s != nil {
		delete(b.sessions, name)
	}
	sb := b.lease.Sandbox()
	b.mu.Unlock()
	if s == nil {
		return nil, failed("close session failed", fmt.Sprintf("session %s does not exist", pyRepr(name)))
	}
	s.close(r.Context(), sb)
	return map[string]string{"session_type": "bash"}, nil
}

// secs renders d as Python prints a float of seconds.
func secs(d time.Duration) string {
	s := d.Seconds()
	if s == float64(int64(s)) {
		return fmt.Sprintf("%.1f", s)
	}
	return fmt.Sprint(s)
}
