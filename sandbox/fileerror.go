package sandbox

import (
	"errors"
	"strings"
	"syscall"
)

// FileError is a file action (WriteFile, ReadFile) that the sandbox's
// kernel refused to the sandbox's user: the same refusal a shell command
// of that user gets (a write into a root-owned file as uid 1000, a read
// of /etc/shadow, a path whose parent is a file). It is the action's
// outcome, not a failure of the sandbox: callers report it to the agent
// as an observation, and nothing was written.
//
// errors.Is(err, fs.ErrPermission) holds for EACCES and EPERM,
// errors.Is(err, ErrNotFound) and fs.ErrNotExist for ENOENT (through the
// Errno).
type FileError struct {
	// Op is what was refused: "write", "read", "mkdir" (a parent
	// directory) or "chmod" (an explicit mode).
	Op string
	// Path is the path as the sandbox resolved it (absolute).
	Path string
	// Errno is the kernel's answer; 0 when the tool's message named no
	// error the kernel gives (then Msg has it).
	Errno syscall.Errno
	// Msg is the tool's own message when Errno is 0.
	Msg string
}

// Error reads as a shell reports the refusal: "write /etc/issue:
// Permission denied".
func (e *FileError) Error() string {
	if e.Errno == 0 {
		return e.Op + " " + e.Path + ": " + e.Msg
	}
	return e.Op + " " + e.Path + ": " + Strerror(e.Errno)
}

// Unwrap returns the errno, so errors.Is(err, fs.ErrPermission) works.
func (e *FileError) Unwrap() error {
	if e.Errno == 0 {
		return nil
	}
	return e.Errno
}

// Is makes an ENOENT FileError an ErrNotFound, as ReadFile has always
// reported a missing file.
func (e *FileError) Is(target error) bool { return target == ErrNotFound && e.Errno == syscall.ENOENT }

// IsFileRefused reports whether err is a FileError: the action was
// refused inside the sandbox (an outcome), not a failure of the sandbox.
func IsFileRefused(err error) bool {
	_, ok := errors.AsType[*FileError](err)
	return ok
}

// Strerror is errno's message as the C library and a shell print it
// ("Permission denied"): Go's text with a capital first letter, which is
// glibc's for every errno a file action meets.
func Strerror(errno syscall.Errno) string {
	s := errno.Error()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// strerrors are the messages tools print for the errnos a file action
// meets, as glibc, musl and busybox word them, longest first where one
// contains another.
var strerrors = []struct {
	text  string
	errno syscall.Errno
}{
	{"Permission denied", syscall.EACCES},
	{"Operation not permitted", syscall.EPERM},
	{"No such file or directory", syscall.ENOENT},
	{"Not a directory", syscall.ENOTDIR},
	{"Is a directory", syscall.EISDIR},
	{"Read-only file system", syscall.EROFS},
	{"No space left on device", syscall.ENOSPC},
	{"File too large", syscall.EFBIG},
	{"Too many levels of symbolic links", syscall.ELOOP},
	{"Symbolic link loop", syscall.ELOOP},
	{"Disk quota exceeded", syscall.EDQUOT},
	{"Quota exceeded", syscall.EDQUOT},
	{"Text file busy", syscall.ETXTBSY},
	{"File name too long", syscall.ENAMETOOLONG},
	{"Filename too long", syscall.ENAMETOOLONG},
	{"File exists", syscall.EEXIST},
	{"Input/output error", syscall.EIO},
	{"I/O error", syscall.EIO},
	{"Invalid argument", syscall.EINVAL},
	{"No such device or address", syscall.ENXIO},
	{"Resource busy", syscall.EBUSY},
	{"Device or resource busy", syscall.EBUSY},
}

// ParseFileRefusal is the FileError of op on path from the message a tool
// of the sandbox printed when it failed (cat, mkdir, chmod, or the shell
// opening a redirection): the errno is the one whose C-library text the
// message holds; a message holding none is kept whole in Msg.
func ParseFileRefusal(op, path, msg string) *FileError {
	msg = strings.TrimSpace(msg)
	for _, s := range strerrors {
		if strings.Contains(msg, s.text) {
			return &FileError{Op: op, Path: path, Errno: s.errno}
		}
	}
	if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
		msg = msg[i+1:]
	}
	if msg == "" {
		msg = "failed"
	}
	return &FileError{Op: op, Path: path, Msg: msg}
}
