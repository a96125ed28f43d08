package containerd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// WriteFile and ReadFile go through an exec of the image's own sh and cat,
// streamed on the exec's stdin and stdout (binary-safe: no terminal), so
// that symlinks resolve inside the container as its processes see them.
// WriteFiles runs nothing in the container (see files_batch.go).

// fileOpTimeout bounds one file action.
const fileOpTimeout = 5 * time.Minute

// Exit codes of the file scripts, chosen clear of the tools' own.
const (
	codeMissing = 40
	codeNotFile = 41
)

// WriteFile writes data at p (relative paths resolve against the workdir),
// creating missing parent directories (0755). Mode 0 keeps the mode of an
// existing file (an edit must not drop the executable bit) and means 0644
// for a new one; an explicit mode writes a temporary file and renames it
// over.
func (s *Sandbox) WriteFile(ctx context.Context, p string, data []byte, mode fs.FileMode) error {
	p = s.resolve(p)
	target, finish := `"$p"`, ""
	if mode != 0 {
		target = `"$p.rbx-tmp"`
		finish = fmt.Sprintf(` && chmod %o "$p.rbx-tmp" && mv -f "$p.rbx-tmp" "$p"`, mode.Perm())
	}
	script := fmt.Sprintf(`umask 022; p=%s; d=${p%%/*}; mkdir -p -- "${d:-/}" && cat > %s%s`, session.Quote(p), target, finish)
	out, code, err := s.fileExec(ctx, script, bytes.NewReader(data), nil)
	if err != nil {
		return fmt.Errorf("write %s in %s: %w", p, s.id, err)
	}
	if code != 0 {
		return fmt.Errorf("write %s in %s: exit %d: %s", p, s.id, code, strings.TrimSpace(string(out)))
	}
	return nil
}

// ReadFile returns the content at p, following symlinks. A missing file
// returns an error wrapping sandbox.ErrNotFound.
func (s *Sandbox) ReadFile(ctx context.Context, p string) ([]byte, error) {
	p = s.resolve(p)
	script := fmt.Sprintf(`p=%s; [ -e "$p" ] || exit %d; [ -f "$p" ] || exit %d; exec cat -- "$p" 2>/dev/null`,
		session.Quote(p), codeMissing, codeNotFile)
	var data lockedBuffer
	_, code, err := s.fileExec(ctx, script, nil, &data)
	switch {
	case err != nil:
		return nil, fmt.Errorf("read %s in %s: %w", p, s.id, err)
	case code == codeMissing:
		return nil, fmt.Errorf("read %s in %s: %w", p, s.id, sandbox.ErrNotFound)
	case code == codeNotFile:
		return nil, fmt.Errorf("read %s in %s: not a regular file", p, s.id)
	case code != 0:
		return nil, fmt.Errorf("read %s in %s: cat exit %d", p, s.id, code)
	}
	return data.Bytes(), nil
}

// fileExec runs script under /bin/sh with stdin, its stdout to out (when
// set; stderr too then) or to the returned output, and returns the exit
// code. A container that is gone is reported as a *sandbox.GoneError.
func (s *Sandbox) fileExec(ctx context.Context, script string, stdin io.Reader, out io.Writer) ([]byte, int, error) {
	ctx, cancel := context.WithTimeout(ctx, fileOpTimeout)
	defer cancel()
	var msg lockedBuffer
	if out == nil {
		out = &msg
	}
	pr, err := s.run(ctx, []string{"/bin/sh", "-c", script}, nil, "/", stdin, out)
	if err != nil {
		return nil, 0, s.gone(ctx, err)
	}
	select {
	case st := <-pr.status:
		code, err := pr.finish(ctx, st)
		if err != nil {
			return nil, 0, s.gone(ctx, err)
		}
		if code == exitSIGKILL {
			if gerr := s.settledGone(context.WithoutCancel(ctx), 4); gerr != nil {
				return nil, 0, gerr
			}
		}
		return msg.Bytes(), code, nil
	case <-ctx.Done():
		pr.delete(ctx)
		return nil, 0, ctx.Err()
	}
}

// resolve makes p absolute against the workdir; empty means the workdir.
func (s *Sandbox) resolve(p string) string {
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	return path.Join(s.workdir, p)
}
