package docker

import (
	"context"
	"encoding/base64"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// File actions through the session shell. The archive API costs the engine
// a re-executed helper process per call — most of a file action's CPU on a
// busy machine — while the session answers in a round trip. Small files go
// through the session when there is one; anything unusual (no base64 in the
// image, a large file, a broken session) falls back to the archive API.

// sessionFileMax bounds what is written through the session: the shell
// reads its input byte by byte, so large files are cheaper as an archive.
const sessionFileMax = 16 << 10

const fileOpTimeout = 30 * time.Second

// Exit codes of the file scripts, chosen clear of base64's own.
const (
	codeMissing = 40
	codeNotFile = 41
)

// sessionReady reports whether file actions may use the session.
func (s *Sandbox) sessionReady() bool {
	return s.mode == sandbox.ModeSession && s.keeper.Active()
}

// readViaSession returns (data, handled, err); handled false means "use the
// archive API instead".
func (s *Sandbox) readViaSession(ctx context.Context, p string) ([]byte, bool, error) {
	if !s.sessionReady() {
		return nil, false, nil
	}
	cmd := fmt.Sprintf(`( p=%s; [ -e "$p" ] || exit %d; [ -f "$p" ] || exit %d; command base64 < "$p" )`,
		session.Quote(p), codeMissing, codeNotFile)
	res, err := s.Exec(ctx, sandbox.ExecRequest{Command: cmd, Timeout: fileOpTimeout})
	switch {
	case err != nil || res.TimedOut || res.Truncated || res.SessionLost:
		return nil, false, nil
	case res.ExitCode == codeMissing:
		return nil, true, fmt.Errorf("read %s in %s: %w", p, s.id, sandbox.ErrNotFound)
	case res.ExitCode == codeNotFile:
		return nil, true, fmt.Errorf("read %s in %s: not a regular file", p, s.id)
	case res.ExitCode != 0:
		return nil, false, nil
	}
	data, derr := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(string(res.Output)), ""))
	if derr != nil {
		return nil, false, nil
	}
	return data, true, nil
}

// writeViaSession writes a small file through the session. Mode 0 writes in
// place, which keeps an existing file's mode (0644 for a new one); an
// explicit mode writes a temporary file, sets the mode and renames it over.
func (s *Sandbox) writeViaSession(ctx context.Context, p string, data []byte, mode fs.FileMode) (bool, error) {
	if !s.sessionReady() || len(data) > sessionFileMax {
		return false, nil
	}
	enc := base64.StdEncoding.EncodeToString(data)
	var b strings.Builder
	for len(enc) > 76 {
		b.WriteString(enc[:76] + "\n")
		enc = enc[76:]
	}
	b.WriteString(enc)
	target, finish := `"$p"`, ""
	if mode != 0 {
		target = `"$p.rbx-tmp"`
		finish = fmt.Sprintf(` && command chmod %o "$p.rbx-tmp" && command mv -f "$p.rbx-tmp" "$p"`, mode.Perm())
	}
	cmd := fmt.Sprintf("( umask 022; p=%s; d=${p%%/*}; command mkdir -p -- \"${d:-/}\" && command base64 -d > %s <<'__RBX_DATA__'%s\n%s\n__RBX_DATA__\n)",
		session.Quote(p), target, finish, b.String())
	res, err := s.Exec(ctx, sandbox.ExecRequest{Command: cmd, Timeout: fileOpTimeout})
	if err != nil || res.TimedOut || res.SessionLost || res.ExitCode != 0 {
		return false, nil
	}
	return true, nil
}
