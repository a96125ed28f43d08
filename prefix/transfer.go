package prefix

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// Sandbox is what the cache needs of a sandbox: its shell. Every transfer
// goes through it (the session shell where there is one).
type Sandbox interface {
	Exec(ctx context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error)
}

// helperTimeout bounds one helper script (a scan of a large image is the
// slowest).
const helperTimeout = 5 * time.Minute

// chunk is how many bytes move per round trip: its base64 stays under the
// default output cap of a step (1 MiB).
const chunk = 192 << 10

// inlineMax bounds the base64 text sent inside one command: under the
// 64 KiB above which bash stages a here-document in /tmp (a change to the
// state being restored).
const inlineMax = 48 << 10

// helper runs a POSIX sh script with args under a clean environment and
// returns its output; a non-zero exit is an error carrying the output.
func helper(ctx context.Context, sb Sandbox, script string, args ...string) (string, error) {
	var b strings.Builder
	b.WriteString(toolsEnv + session.Quote(script) + " rbx-prefix")
	for _, a := range args {
		b.WriteString(" " + session.Quote(a))
	}
	return run(ctx, sb, b.String())
}

// run executes cmd in the sandbox's own mode and returns its output.
func run(ctx context.Context, sb Sandbox, cmd string) (string, error) {
	res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: cmd, Timeout: helperTimeout})
	switch {
	case err != nil:
		return "", err
	case res.SessionLost:
		return "", fmt.Errorf("%w: the session shell ended", sandbox.ErrSessionLost)
	case res.TimedOut:
		return "", fmt.Errorf("timed out after %v", helperTimeout)
	case res.Truncated:
		return "", fmt.Errorf("output over the sandbox's output cap (%d bytes)", res.OutputBytes)
	case res.ExitCode != 0:
		return "", fmt.Errorf("exit %d: %s", res.ExitCode, clipText(strings.TrimSpace(string(res.Output)), 300))
	}
	return string(res.Output), nil
}

// readFile reads size bytes of a file in the sandbox, chunk by chunk.
func readFile(ctx context.Context, sb Sandbox, path string, size int64) ([]byte, error) {
	out := make([]byte, 0, size)
	for i := int64(0); int64(len(out)) < size; i++ {
		text, err := helper(ctx, sb, readChunkScript, path, fmt.Sprint(chunk), fmt.Sprint(i))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(text), ""))
		if err != nil || len(b) == 0 {
			return nil, fmt.Errorf("read %s: block %d: bad base64 (%v)", path, i, err)
		}
		out = append(out, b...)
	}
	if int64(len(out)) != size {
		return nil, fmt.Errorf("read %s: %d bytes, expected %d", path, len(out), size)
	}
	return out, nil
}

// heredoc is a command reading data, in base64, from a here-document:
// "<cmd> <<'__RBX_PFX__'<rest>", then the text.
func heredoc(cmd string, data []byte, rest string) string {
	enc := base64.StdEncoding.EncodeToString(data)
	var b strings.Builder
	b.Grow(len(enc) + len(enc)/76 + len(cmd) + len(rest) + 40)
	b.WriteString(cmd + " <<'__RBX_PFX__'" + rest + "\n")
	for len(enc) > 76 {
		b.WriteString(enc[:76] + "\n")
		enc = enc[76:]
	}
	b.WriteString(enc + "\n__RBX_PFX__\n")
	return b.String()
}

// writeFile stages data at path in the sandbox, chunk by chunk (for
// archives too large to travel inside the apply command).
func writeFile(ctx context.Context, sb Sandbox, path string, data []byte) error {
	for off := 0; off < len(data) || off == 0; off += chunk {
		end := min(off+chunk, len(data))
		redir := ">"
		if off > 0 {
			redir = ">>"
		}
		if _, err := run(ctx, sb, heredoc("command base64 -d "+redir+" "+session.Quote(path), data[off:end], "")); err != nil {
			return fmt.Errorf("stage %s: %w", path, err)
		}
		if end == len(data) {
			break
		}
	}
	return nil
}

// shmPath is a fresh staging path.
func shmPath(what string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return shmDir + "/rbx-prefix-" + what + "-" + hex.EncodeToString(b)
}
