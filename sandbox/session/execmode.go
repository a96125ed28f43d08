package session

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// The pieces of exec mode (a fresh exec per step, see sandbox.ModeExec)
// that do not depend on how a backend starts an exec: every container
// backend builds the same command, marks it the same way and picks the
// same shell, so that a step behaves alike on all of them.

// NewMarker returns a unique RBX_STEP value for one exec-mode step. It
// differs from a session's markers (which start with the shell's nonce),
// and the trailing dash keeps one marker from being a prefix of another,
// so KillScript never kills another step's processes.
func NewMarker() string { return "x" + secret(8) + "-" }

// FreshScript is the script exec mode runs for req with `<shell> -c`.
// stderr joins stdout in the shell, so that the two stay in order, and a
// missing Cwd fails like a shell's cd (as in the session) rather than as
// an engine error.
func FreshScript(req sandbox.ExecRequest) string {
	script := "exec 2>&1\n"
	if req.Cwd != "" {
		script += "cd -- " + Quote(req.Cwd) + " || exit\n"
	}
	return script + req.Command
}

// CheckEnv returns an error wrapping sandbox.ErrInvalidSpec when a name in
// env cannot name a shell variable (see ValidEnvName): a step's
// environment goes through a shell's export, where such a name would be
// a syntax error or worse.
func CheckEnv(env map[string]string) error {
	for k := range env {
		if !ValidEnvName(k) {
			return fmt.Errorf("%w: env name %q: expected letters, digits and _", sandbox.ErrInvalidSpec, k)
		}
	}
	return nil
}

// ProbeScript prints the path of bash when the image has one, nothing
// otherwise; ShellProbe runs it with the image's /bin/sh.
const ProbeScript = "command -v bash || true"

// ShellProbe remembers the shell a sandbox's exec-mode steps run with:
// bash where the image has it (as in a session), /bin/sh otherwise. The
// image cannot change under a running sandbox, so it is probed once. The
// zero value is ready to use.
type ShellProbe struct {
	mu    sync.Mutex
	shell string
}

// Shell returns the shell, running probe (which runs ProbeScript in the
// sandbox and returns its output) on the first call, and again after a
// probe failed.
func (p *ShellProbe) Shell(ctx context.Context, probe func(ctx context.Context) ([]byte, error)) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shell != "" {
		return p.shell, nil
	}
	out, err := probe(ctx)
	if err != nil {
		return "", fmt.Errorf("detect shell: %w", err)
	}
	p.shell = "/bin/sh"
	if sh := strings.TrimSpace(string(out)); strings.HasPrefix(sh, "/") {
		p.shell = sh
	}
	return p.shell, nil
}
