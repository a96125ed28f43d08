package docker

import (
	"context"
	"io"
	"io/fs"

	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// WriteFile and ReadFile act for a step or a policy, so they run in the
// sandbox as its user (Spec.User) with the image's sh and tools: the
// kernel checks what it checks for a shell command of that user, and a
// refusal is a *sandbox.FileError (session.WriteScript). Small files go
// through the session shell (a round trip); larger ones, exec mode and a
// session that cannot take them go through a process of their own,
// spawned by PID 1's mux where there is one, else an engine exec — never
// the engine's archive API, which writes as root whatever the user.
// WriteFiles, for rbx's own files, does use the archive API (files_batch.go).

// WriteFile writes data at p (relative paths resolve against the workdir),
// creating missing parent directories. mode 0 keeps the mode of an existing
// file (an edit must not drop the executable bit) and means 0644 for a new
// one. Files belong to the sandbox's user.
func (s *Sandbox) WriteFile(ctx context.Context, p string, data []byte, mode fs.FileMode) error {
	p = s.resolve(p)
	if ok, err := s.writeViaSession(ctx, p, data, mode); ok {
		return err
	}
	return s.files().WriteFile(ctx, p, data, mode)
}

// ReadFile returns the content at p, following symlinks. A missing file
// returns an error wrapping sandbox.ErrNotFound.
func (s *Sandbox) ReadFile(ctx context.Context, p string) ([]byte, error) {
	p = s.resolve(p)
	if data, ok, err := s.readViaSession(ctx, p); ok {
		return data, err
	}
	return s.files().ReadFile(ctx, p)
}

// files runs the file scripts in processes of their own (fileExec).
func (s *Sandbox) files() session.Files {
	return session.Files{ID: s.id, Workdir: s.workdir, Exec: s.fileExec}
}

// fileExec is the session.FileExec of a docker sandbox: /bin/sh as the
// sandbox's user, through PID 1's mux or an engine exec.
func (s *Sandbox) fileExec(ctx context.Context, script string, data []byte, out io.Writer) ([]byte, int, error) {
	ctx, cancel := context.WithTimeout(ctx, session.FileOpTimeout)
	defer cancel()
	var buf session.LockedBuffer
	if out == nil {
		out = &buf
	}
	argv := []string{"/bin/sh", "-c", script}
	code, err := s.muxRun(ctx, argv, data, out)
	if err == errNoMux {
		code, err = s.execRun(ctx, argv, data, out)
	}
	if err != nil {
		return nil, 0, s.gone(ctx, err)
	}
	return buf.Bytes(), code, nil
}
