package kubernetes

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// Files go in and out through exec streams, run by the pod's own static
// busybox (toolsDir), never the image's tools: WriteFile streams the data
// to cat on stdin, ReadFile streams cat's stdout back, WriteFiles streams
// one tar archive. Every exec runs as the container's user, so files are
// that user's.

// files writes and reads single files through execs (see session.Files):
// sized, as the exec stream's stdin is (see fileExec).
func (s *Sandbox) files() session.Files {
	return session.Files{ID: s.id, Workdir: s.workdir, Exec: s.fileExec, Sized: true}
}

// WriteFile writes data at p (relative paths resolve against the workdir),
// creating missing parent directories (0755). Mode 0 keeps the mode of an
// existing file and means 0644 for a new one; an explicit mode writes a
// temporary file and renames it over.
func (s *Sandbox) WriteFile(ctx context.Context, p string, data []byte, mode fs.FileMode) error {
	return s.files().WriteFile(ctx, p, data, mode)
}

// ReadFile returns the content at p, following symlinks. A missing file
// returns an error wrapping sandbox.ErrNotFound.
func (s *Sandbox) ReadFile(ctx context.Context, p string) ([]byte, error) {
	return s.files().ReadFile(ctx, p)
}

// WriteFiles writes every file in one exec: a tar archive of temporary
// names is extracted (owned by the container's user), then each is given
// its mode and renamed over its target, so a symlink a step planted at the
// target is replaced, not followed. Mode 0 means 0644.
func (s *Sandbox) WriteFiles(ctx context.Context, files []sandbox.File) error {
	if len(files) == 0 {
		return nil
	}
	var archive bytes.Buffer
	tw := tar.NewWriter(&archive)
	dirs := map[string]bool{}
	var script, tmps strings.Builder
	now := time.Now()
	for _, f := range files {
		p := s.resolve(f.Path)
		if p == "/" {
			return fmt.Errorf("write %q in %s: not a file path", f.Path, s.id)
		}
		mode := f.Mode.Perm()
		if mode == 0 {
			mode = 0o644
		}
		tmp := p + ".rbx-" + randomHex(4)
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: strings.TrimPrefix(tmp, "/"), Mode: int64(mode), Size: int64(len(f.Data)), ModTime: now}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("write %s in %s: %w", f.Path, s.id, err)
		}
		if _, err := tw.Write(f.Data); err != nil {
			return fmt.Errorf("write %s in %s: %w", f.Path, s.id, err)
		}
		dirs[path.Dir(p)] = true
		fmt.Fprintf(&script, "chmod %o %s && mv -f %s %s || fail\n", mode, session.Quote(tmp), session.Quote(tmp), session.Quote(p))
		tmps.WriteString(" " + session.Quote(tmp))
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("write %d files in %s: %w", len(files), s.id, err)
	}
	var mk strings.Builder
	for d := range dirs {
		mk.WriteString(" " + session.Quote(d))
	}
	full := "umask 022; fail() { rm -f --" + tmps.String() + "; exit 1; }\nmkdir -p --" + mk.String() +
		" || fail\nhead -c " + strconv.Itoa(archive.Len()) + " | tar -x -o -f - -C / || fail\n" + script.String()
	out, code, err := s.fileExec(ctx, full, archive.Bytes(), nil)
	if err != nil {
		return fmt.Errorf("write %d files in %s: %w", len(files), s.id, err)
	}
	if code != 0 {
		return fmt.Errorf("write %d files in %s: exit %d: %s", len(files), s.id, code, strings.TrimSpace(string(out)))
	}
	return nil
}

// codeNoStdin is the exit code of a file script whose stdin was at its
// end from the start (see fileExec).
const codeNoStdin = 75

// stdinTries bounds the retries of a file script that got no stdin.
const stdinTries = 4

// fileExec is the session.FileExec of a pod sandbox: the pod's busybox
// runs the script.
//
// The kubelet's exec stream sometimes starts a process whose stdin is
// already at its end (measured here: about 1 write in 10 came out empty,
// over WebSocket and SPDY alike). So the data goes behind a one-byte gate,
// read with dd (which reads no further): a script that finds no gate exits
// codeNoStdin having written nothing, and is run again; the scripts read
// exactly len(data) bytes and check the size they wrote, and stdin is held
// open until the process ends, so its end is never taken from the stream.
func (s *Sandbox) fileExec(ctx context.Context, script string, data []byte, out io.Writer) ([]byte, int, error) {
	ctx, cancel := context.WithTimeout(ctx, session.FileOpTimeout)
	defer cancel()
	if data != nil {
		script = fmt.Sprintf(`g=$(dd bs=1 count=1 2>/dev/null); [ "$g" = R ] || exit %d; `, codeNoStdin) + script
	}
	for try := 1; ; try++ {
		b, code, err := s.fileExecOnce(ctx, script, data, out)
		if err != nil || code != codeNoStdin || data == nil || try == stdinTries {
			return b, code, err
		}
		s.rt.cfg.log.Debug("file exec got no stdin; again", "sandbox", s.id, "try", try)
	}
}

func (s *Sandbox) fileExecOnce(ctx context.Context, script string, data []byte, out io.Writer) ([]byte, int, error) {
	var stdin io.Reader
	if data != nil {
		held := make(chan struct{})
		defer close(held)
		stdin = io.MultiReader(strings.NewReader("R"), bytes.NewReader(data), heldOpen(held))
	}
	b, code, err := s.runShort(ctx, script, stdin, out)
	if err != nil {
		return nil, 0, s.gone(ctx, err)
	}
	if code == exitSIGKILL {
		if gerr := s.checkRunning(context.WithoutCancel(ctx)); gerr != nil {
			return nil, 0, gerr
		}
	}
	return b, code, nil
}

// heldOpen is a reader that blocks until done is closed, then ends.
type heldOpen <-chan struct{}

func (h heldOpen) Read([]byte) (int, error) {
	<-h
	return 0, io.EOF
}

// resolve makes p absolute against the workdir; empty means the workdir.
func (s *Sandbox) resolve(p string) string { return sandbox.ResolvePath(s.workdir, p) }
