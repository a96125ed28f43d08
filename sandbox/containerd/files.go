package containerd

import (
	"bytes"
	"context"
	"io"
	"io/fs"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// WriteFile and ReadFile go through an exec of the image's own sh and cat,
// streamed on the exec's stdin and stdout (binary-safe: no terminal), so
// that symlinks resolve inside the container as its processes see them.
// WriteFiles runs nothing in the container (see files_batch.go).

// files writes and reads single files through execs (see session.Files).
func (s *Sandbox) files() session.Files {
	return session.Files{ID: s.id, Workdir: s.workdir, Exec: s.fileExec}
}

// WriteFile writes data at p (relative paths resolve against the workdir),
// creating missing parent directories (0755). Mode 0 keeps the mode of an
// existing file (an edit must not drop the executable bit) and means 0644
// for a new one; an explicit mode writes a temporary file and renames it
// over.
func (s *Sandbox) WriteFile(ctx context.Context, p string, data []byte, mode fs.FileMode) error {
	return s.files().WriteFile(ctx, p, data, mode)
}

// ReadFile returns the content at p, following symlinks. A missing file
// returns an error wrapping sandbox.ErrNotFound.
func (s *Sandbox) ReadFile(ctx context.Context, p string) ([]byte, error) {
	return s.files().ReadFile(ctx, p)
}

// fileExec is the session.FileExec of a containerd sandbox: the image's
// /bin/sh, with data streamed to its stdin.
func (s *Sandbox) fileExec(ctx context.Context, script string, data []byte, out io.Writer) ([]byte, int, error) {
	ctx, cancel := context.WithTimeout(ctx, session.FileOpTimeout)
	defer cancel()
	var msg session.LockedBuffer
	if out == nil {
		out = &msg
	}
	var stdin io.Reader
	if data != nil {
		stdin = bytes.NewReader(data)
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
func (s *Sandbox) resolve(p string) string { return sandbox.ResolvePath(s.workdir, p) }
