package docker

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/rbx-sandbox/rbx/recycle/agent"
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
	code, err := s.muxFile(ctx, argv, data, out)
	if err == errNoMux {
		code, err = s.execFile(ctx, argv, data, out)
	}
	if err != nil {
		return nil, 0, s.gone(ctx, err)
	}
	return buf.Bytes(), code, nil
}

// errNoMux: the sandbox has no PID 1 mux to spawn a process through.
var errNoMux = fmt.Errorf("no mux")

// muxFile runs argv as the sandbox's exec user through PID 1's mux, with
// data on its stdin (nil: none), its merged output to out.
func (s *Sandbox) muxFile(ctx context.Context, argv []string, data []byte, out io.Writer) (int, error) {
	sp, ok := s.muxSpec()
	if !ok {
		return 0, errNoMux
	}
	sp.Path, sp.Argv = argv[0], argv
	mc, err := s.mux.open(agent.OpenRequest{Op: "spawn", Spawn: &sp})
	if err != nil {
		return 0, err
	}
	defer mc.Close()
	stop := context.AfterFunc(ctx, func() { mc.fail(ctx.Err()) })
	defer stop()
	go func() {
		if len(data) > 0 {
			_, _ = mc.Write(data) // a script that stopped reading fails it: its status tells
		}
		_ = mc.CloseWrite()
	}()
	_, rerr := io.Copy(out, mc)
	st, err := mc.Wait(ctx)
	switch {
	case err != nil:
		return 0, err
	case rerr != nil:
		return 0, rerr
	case st.Err != "":
		return 0, fmt.Errorf("agent mux: %s", st.Err)
	}
	return st.Code, nil
}

// execFile runs argv in an engine exec as the sandbox's exec user, with
// data on its stdin (nil: none), its output to out.
func (s *Sandbox) execFile(ctx context.Context, argv []string, data []byte, out io.Writer) (int, error) {
	ex, err := s.rt.cli.ContainerExecCreate(ctx, s.id, container.ExecOptions{
		AttachStdin: data != nil, AttachStdout: true, AttachStderr: true, Cmd: argv, User: s.execUser, WorkingDir: "/",
	})
	if err != nil {
		return 0, fmt.Errorf("exec: %w", err)
	}
	hj, err := s.rt.cli.ContainerExecAttach(ctx, ex.ID, container.ExecAttachOptions{})
	if err != nil {
		return 0, fmt.Errorf("attach: %w", err)
	}
	defer hj.Close()
	stop := context.AfterFunc(ctx, func() { hj.Close() }) // the hijacked connection ignores ctx
	defer stop()
	if data != nil {
		go func() {
			_, _ = io.Copy(hj.Conn, bytes.NewReader(data))
			_ = hj.CloseWrite()
		}()
	}
	if _, err := stdcopy.StdCopy(out, out, hj.Reader); err != nil && ctx.Err() != nil {
		return 0, fmt.Errorf("read: %w", ctx.Err())
	}
	return s.exitCode(ctx, ex.ID)
}
