package docker

import (
	"context"
	"encoding/base64"
	"io/fs"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// File actions through the session shell. A process of their own costs
// the engine an exec (or PID 1 a spawn) per call, while the session
// answers in a round trip. Small files go through the session when there
// is one, in a subshell, data in base64 on a here-document; anything
// unusual (no base64 in the image, a large file or output, a broken
// session) takes the other path (files.go), which runs as the same user.

// sessionFileMax bounds what is written through the session: the shell
// reads its input byte by byte, so large files are cheaper on a stream.
const sessionFileMax = 16 << 10

// fileOpTimeout bounds a file action through the session.
const fileOpTimeout = 30 * time.Second

// noBase64 is the exit code of a session script that found no base64;
// needBase64 starts the subshell of both scripts with that check (a
// missing base64 would leave tee writing an empty file).
const (
	noBase64   = 127
	needBase64 = "( command -v base64 >/dev/null || exit 127\n"
)

// sessionReady reports whether file actions may use the session.
func (s *Sandbox) sessionReady() bool {
	return s.mode == sandbox.ModeSession && s.keeper.Active()
}

// readViaSession returns (data, handled, err); handled false means "take
// the other path".
func (s *Sandbox) readViaSession(ctx context.Context, p string) ([]byte, bool, error) {
	if !s.sessionReady() {
		return nil, false, nil
	}
	cmd := needBase64 + session.ReadScript(p, session.ReaderBase64) + ")"
	res, err := s.Exec(ctx, sandbox.ExecRequest{Command: cmd, Timeout: fileOpTimeout})
	if err != nil || res.TimedOut || res.Truncated || res.SessionLost || res.ExitCode == noBase64 {
		return nil, false, nil
	}
	if err := session.ScriptResult("read", p, res.Output, res.ExitCode); err != nil {
		if sandbox.IsFileRefused(err) {
			return nil, true, err
		}
		return nil, false, nil
	}
	data, derr := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(string(res.Output)), ""))
	if derr != nil {
		return nil, false, nil
	}
	return data, true, nil
}

// writeViaSession writes a small file through the session: (handled,
// err); handled false means "take the other path".
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
	cmd := needBase64 + session.WriteScript(p, mode, "command base64 -d", -1) +
		") <<'__RBX_DATA__'\n" + b.String() + "\n__RBX_DATA__"
	res, err := s.Exec(ctx, sandbox.ExecRequest{Command: cmd, Timeout: fileOpTimeout})
	if err != nil || res.TimedOut || res.SessionLost || res.ExitCode == noBase64 {
		return false, nil
	}
	if err := session.ScriptResult("write", p, res.Output, res.ExitCode); err != nil {
		return sandbox.IsFileRefused(err), err
	}
	return true, nil
}
