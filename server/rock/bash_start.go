package rock

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// startupTimeout bounds a session's start: the shell's first prompt, then
// sourcing ~/.bashrc and the startup files.
const startupTimeout = 60 * time.Second

// defaultPath is the PATH of a session started without the container's
// environment (env_enable false): bash needs one to find programs.
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// sessionSpec is how a session starts (create_session's fields).
type sessionSpec struct {
	Name string
	// EnvEnable keeps the container's environment; false starts bash from
	// an empty one (plus PATH).
	EnvEnable bool
	// Env is exported on top, before any file is sourced.
	Env map[string]string
	// Source lists files sourced after ~/.bashrc.
	Source    []string
	OutputCap int
}

var pidLine = regexp.MustCompile(`__rbxPID(\d+)_`)

// startBash starts a session's bash on a terminal of sb and brings it to
// the protocol: the first line sets the marker prompt, turns the echo off
// and reports the shell's pid; the setup script then exports the
// environment and sources ~/.bashrc (as an interactive bash does) and the
// startup files. Its output is create_session's.
func startBash(ctx context.Context, sb sandbox.Sandbox, spec sessionSpec) (*bashSession, string, error) {
	tsb, ok := sb.(sandbox.Terminal)
	if !ok {
		return nil, "", fmt.Errorf("sandbox %s: %w: its backend has no terminals", sb.ID(), sandbox.ErrNoTerminal)
	}
	// --noediting: no readline, so no line editing sequences in the output
	// and typed lines reach bash as they are.
	argv := []string{"/bin/bash", "--noediting", "--norc", "--noprofile", "-i"}
	term, err := tsb.StartTerminal(ctx, sandbox.TerminalRequest{Argv: argv})
	if err != nil {
		return nil, "", fmt.Errorf("start session %q: %w", spec.Name, err)
	}
	s := newBashSession(spec.Name, term, spec.OutputCap)
	ctx, cancel := context.WithTimeout(ctx, startupTimeout)
	defer cancel()
	// The quotes split the marker and the pid token, so that an echo of
	// this line (before stty -echo takes effect) matches neither.
	first := fmt.Sprintf(`PS1='\n__rbx'%s'_${__rbx_s}_\n'; __rbx_p=$PS1; __rbx_s=0; PS2=; PS0=; unset PROMPT_COMMAND HISTFILE; `+
		`set +o history; stty -echo 2>/dev/null; printf '__rbxPID%%s_\n' "$$"`+"\n", s.nonce)
	if err := s.write(first); err != nil {
		s.hangUp()
		return nil, "", fmt.Errorf("start session %q: %w", spec.Name, err)
	}
	out, _, err := s.await(ctx, time.Now().Add(startupTimeout), 1)
	if err != nil {
		s.hangUp()
		return nil, "", fmt.Errorf("start session %q: no prompt from /bin/bash (does the image have bash?): %w: %s", spec.Name, err, clip(cleanOutput(out), 300))
	}
	if m := pidLine.FindSubmatch(out); m != nil {
		s.pid = string(m[1])
	}
	res, err := s.run(ctx, setupScript(spec), startupTimeout)
	var se *syntaxError
	if errors.As(err, &se) {
		s.close(ctx, sb)
		return nil, "", fmt.Errorf("start session %q: %w", spec.Name, err)
	}
	if err != nil {
		s.close(ctx, sb)
		return nil, "", fmt.Errorf("start session %q: startup: %w: %s", spec.Name, err, clip(res.Output, 300))
	}
	return s, res.Output, nil
}

// setupScript exports the session's environment and sources its files.
func setupScript(spec sessionSpec) string {
	var b strings.Builder
	if !spec.EnvEnable {
		// Unexport what the container set. Kept: what bash exports itself,
		// and RBX_ROOT, by which the local backend finds a sandbox's
		// processes to end them.
		b.WriteString(`for __rbx_v in $(compgen -e); do case $__rbx_v in PWD|SHLVL|_|RBX_ROOT) ;; *) unset "$__rbx_v" 2>/dev/null;; esac; done; unset __rbx_v` + "\n")
		b.WriteString("export PATH=" + defaultPath + "\n")
	}
	keys := make([]string, 0, len(spec.Env))
	for k := range spec.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "export %s=%s\n", k, session.Quote(spec.Env[k]))
	}
	b.WriteString("if [ -r ~/.bashrc ]; then . ~/.bashrc; fi\n")
	for _, f := range spec.Source {
		fmt.Fprintf(&b, ". %s\n", session.Quote(f))
	}
	b.WriteString("stty -echo 2>/dev/null; true\n")
	return b.String()
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
