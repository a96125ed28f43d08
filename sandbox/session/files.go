package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// FileOpTimeout bounds one file action through an exec (see Files).
const FileOpTimeout = 5 * time.Minute

// Exit codes of the file scripts, chosen clear of the tools' own.
const (
	codeMissing = 40
	codeNotFile = 41
)

// errNotFile is a read of something that exists but is not a regular file.
var errNotFile = errors.New("not a regular file")

// FileExec runs a file script of Files in the sandbox with a POSIX sh:
// data on its stdin (nil: no stdin), its stdout and stderr to out when out
// is not nil (it must be safe for concurrent writes), else to the returned
// output; it returns the script's exit code. A sandbox that is gone is
// reported as a *sandbox.GoneError.
type FileExec func(ctx context.Context, script string, data []byte, out io.Writer) ([]byte, int, error)

// Files writes and reads single files through exec streams: the data goes
// to cat on stdin, or comes back from cat's stdout (binary-safe: no
// terminal), so that paths and symlinks resolve inside the sandbox as its
// processes see them, and files are the exec user's.
type Files struct {
	// ID is the sandbox's id, for errors.
	ID string
	// Workdir is what relative paths resolve against.
	Workdir string
	// Exec runs the scripts.
	Exec FileExec
	// Sized says that the end of an exec's stdin cannot be trusted (the
	// kubelet's stream): a write then reads exactly len(data) bytes and
	// checks the size it wrote, instead of reading to the end.
	Sized bool
}

// WriteFile writes data at p (relative paths resolve against the workdir),
// creating missing parent directories (0755). Mode 0 keeps the mode of an
// existing file (an edit must not drop the executable bit) and means 0644
// for a new one; an explicit mode writes a temporary file and renames it
// over.
func (f Files) WriteFile(ctx context.Context, p string, data []byte, mode fs.FileMode) error {
	p = sandbox.ResolvePath(f.Workdir, p)
	target, finish := `"$p"`, ""
	if mode != 0 {
		target = `"$p.rbx-tmp"`
		finish = fmt.Sprintf(` && chmod %o "$p.rbx-tmp" && mv -f "$p.rbx-tmp" "$p"`, mode.Perm())
	}
	write, stdin := "cat > "+target, data
	if f.Sized {
		write = fmt.Sprintf(`head -c %d > %s && [ "$(wc -c < %s)" -eq %d ]`, len(data), target, target, len(data))
	} else if stdin == nil {
		stdin = []byte{} // cat reads to the end of its stdin: it needs one, however empty
	}
	script := fmt.Sprintf(`umask 022; p=%s; d=${p%%/*}; mkdir -p -- "${d:-/}" && %s%s`, Quote(p), write, finish)
	out, code, err := f.Exec(ctx, script, stdin, nil)
	if err != nil {
		return fmt.Errorf("write %s in %s: %w", p, f.ID, err)
	}
	if code != 0 {
		return fmt.Errorf("write %s in %s: exit %d: %s", p, f.ID, code, strings.TrimSpace(string(out)))
	}
	return nil
}

// ReadFile returns the content at p, following symlinks. A missing file
// returns an error wrapping sandbox.ErrNotFound.
func (f Files) ReadFile(ctx context.Context, p string) ([]byte, error) {
	p = sandbox.ResolvePath(f.Workdir, p)
	script := fmt.Sprintf(`p=%s; [ -e "$p" ] || exit %d; [ -f "$p" ] || exit %d; exec cat -- "$p" 2>/dev/null`,
		Quote(p), codeMissing, codeNotFile)
	var data LockedBuffer
	_, code, err := f.Exec(ctx, script, nil, &data)
	switch {
	case err != nil:
		return nil, fmt.Errorf("read %s in %s: %w", p, f.ID, err)
	case code == codeMissing:
		return nil, fmt.Errorf("read %s in %s: %w", p, f.ID, sandbox.ErrNotFound)
	case code == codeNotFile:
		return nil, fmt.Errorf("read %s in %s: %w", p, f.ID, errNotFile)
	case code != 0:
		return nil, fmt.Errorf("read %s in %s: cat exit %d", p, f.ID, code)
	}
	return data.Bytes(), nil
}
