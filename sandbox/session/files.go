package session

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// FileOpTimeout bounds one file action through an exec (see Files).
const FileOpTimeout = 5 * time.Minute

// Files writes and reads single files through exec streams: the data goes
// to cat on stdin, or comes back from cat's stdout (binary-safe: no
// terminal). The scripts run as the sandbox's user, so that paths and
// symlinks resolve inside the sandbox as its processes see them, files
// are that user's, and the kernel makes every permission check it makes
// for a shell command of that user: a refusal is a *sandbox.FileError
// and nothing was written (see FileScripts).
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

// FileExec runs a file script of Files in the sandbox with a POSIX sh,
// as the sandbox's user: data on its stdin (nil: no stdin), its stdout
// and stderr to out when out is not nil (it must be safe for concurrent
// writes), else to the returned output; it returns the script's exit
// code. A sandbox that is gone is reported as a *sandbox.GoneError.
type FileExec func(ctx context.Context, script string, data []byte, out io.Writer) ([]byte, int, error)

// WriteFile writes data at p (relative paths resolve against the workdir),
// creating missing parent directories (0755). Mode 0 keeps the mode of an
// existing file (an edit must not drop the executable bit) and means 0644
// for a new one; an explicit mode is set after the write, as chmod would.
func (f Files) WriteFile(ctx context.Context, p string, data []byte, mode fs.FileMode) error {
	p = sandbox.ResolvePath(f.Workdir, p)
	size := -1
	stdin := data
	if f.Sized {
		size = len(data)
	} else if stdin == nil {
		stdin = []byte{} // cat reads to the end of its stdin: it needs one, however empty
	}
	out, code, err := f.Exec(ctx, WriteScript(p, mode, "", size), stdin, nil)
	if err != nil {
		return fmt.Errorf("write %s in %s: %w", p, f.ID, err)
	}
	return f.result("write", p, out, code)
}

// ReadFile returns the content at p, following symlinks. A missing file
// returns an error wrapping sandbox.ErrNotFound.
func (f Files) ReadFile(ctx context.Context, p string) ([]byte, error) {
	p = sandbox.ResolvePath(f.Workdir, p)
	var data LockedBuffer
	_, code, err := f.Exec(ctx, ReadScript(p, ""), nil, &data)
	if err != nil {
		return nil, fmt.Errorf("read %s in %s: %w", p, f.ID, err)
	}
	if err := f.result("read", p, data.Bytes(), code); err != nil {
		return nil, err
	}
	return data.Bytes(), nil
}

// result is ScriptResult: a refusal as it is (it reads as the shell
// reports it), another failure naming the sandbox.
func (f Files) result(op, p string, out []byte, code int) error {
	err := ScriptResult(op, p, out, code)
	if err == nil || sandbox.IsFileRefused(err) {
		return err
	}
	return fmt.Errorf("%s in %s: %w", op, f.ID, err)
}
