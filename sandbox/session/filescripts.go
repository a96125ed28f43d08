package session

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// The file scripts run every operation of a file action — creating the
// parent directories, opening the file, setting its mode — as the
// sandbox's user, with the image's own sh, mkdir, cat and chmod, so that
// the kernel checks exactly what it checks for a shell command of that
// user (modes, owners, ACLs, read-only mounts). A refused operation
// prints refusedMarker, the operation and the tool's message, and exits
// codeRefused; ScriptResult turns that into a *sandbox.FileError. The
// tools' messages are captured, never shown to a caller as they are: the
// errno is read from them (sandbox.ParseFileRefusal).

// Exit codes of the file scripts, chosen clear of the tools' own.
const (
	codeRefused    = 42
	codeShortWrite = 43
)

// refusedMarker starts a refusal's report in a script's output; the last
// one counts (a read's data comes first).
const refusedMarker = "\036rbx-refused "

// refuseFunc reports a refusal: refusedMarker, the operation, a newline,
// the tool's message.
const refuseFunc = `__rbx_refuse() { printf '\036rbx-refused %s\n%s\n' "$1" "$2"; exit 42; }` + "\n"

// Writers and readers of the scripts.
const (
	// WriterCat copies stdin.
	WriterCat = "command cat"
	// ReaderCat copies the file to stdout.
	ReaderCat = `command cat -- "$p"`
	// ReaderBase64 prints the file in base64 (a shell session's output is
	// text).
	ReaderBase64 = `command base64 -- "$p"`
)

// WriteScript writes at p what writer (a command reading the script's
// stdin, WriterCat when empty) prints: missing parent
// directories created (0755), the file opened for writing in place (an
// existing file keeps its mode and owner, a symlink is followed), with
// mode set when not 0: before the write for an existing file (a chmod
// the user may not do refuses the action before anything is written),
// after it for a new one. size ≥ 0 reads exactly size bytes (head -c) and
// checks the size written, for streams whose end cannot be trusted.
func WriteScript(p string, mode fs.FileMode, writer string, size int) string {
	if writer == "" {
		writer = WriterCat
	}
	if size >= 0 {
		writer = fmt.Sprintf("command head -c %d", size)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "umask 022; p=%s; d=${p%%/*}; d=${d:-/}\n", Quote(p))
	b.WriteString(refuseFunc)
	// Only a missing parent is made: one that is a file fails the write
	// as ENOTDIR, as a shell's redirection does.
	b.WriteString(`[ -e "$d" ] || { __rbx_e=$(command mkdir -p -- "$d" 2>&1) || __rbx_refuse mkdir "$__rbx_e"; }` + "\n")
	chmod := ""
	if mode != 0 {
		chmod = fmt.Sprintf(`__rbx_e=$(command chmod %o -- "$p" 2>&1) || __rbx_refuse chmod "$__rbx_e"`, mode.Perm())
		// An existing file's mode first: a refused chmod writes nothing.
		b.WriteString(`[ ! -e "$p" ] || { ` + chmod + "; }\n")
	}
	// tee opens the file itself: its message has the C library's words
	// (busybox sh words a refused redirection "nonexistent directory" for
	// both ENOENT and ENOTDIR).
	fmt.Fprintf(&b, `__rbx_e=$( { %s | command tee -- "$p" >/dev/null; } 2>&1 ) || __rbx_refuse write "$__rbx_e"`+"\n", writer)
	if size >= 0 {
		fmt.Fprintf(&b, `[ "$(command wc -c < "$p")" -eq %d ] || exit %d`+"\n", size, codeShortWrite)
	}
	if chmod != "" {
		b.WriteString(chmod + "\n")
	}
	return b.String()
}

// ReadScript prints the file at p as reader has it (ReaderCat when
// empty; the script names the file "$p"), following symlinks: a directory
// is refused as cat refuses it, anything else that is not a regular file
// (a FIFO a read would block on, a device) is refused too.
func ReadScript(p, reader string) string {
	if reader == "" {
		reader = ReaderCat
	}
	var b strings.Builder
	fmt.Fprintf(&b, "p=%s\n", Quote(p))
	b.WriteString(refuseFunc)
	b.WriteString(`[ ! -d "$p" ] || __rbx_refuse read 'Is a directory'` + "\n")
	b.WriteString(`[ ! -e "$p" ] || [ -f "$p" ] || __rbx_refuse read 'not a regular file'` + "\n")
	// Data to the script's stdout (fd 3), the tool's and the redirection's
	// messages captured: 2>&1 comes before the file is opened.
	fmt.Fprintf(&b, "exec 3>&1; __rbx_e=$(%s) || __rbx_refuse read \"$__rbx_e\"\n",
		strings.Replace(reader, "command ", "command 2>&1 1>&3 ", 1))
	return b.String()
}

// ScriptResult is the outcome of a file script of op on p that exited
// with code, having printed out: nil for 0, a *sandbox.FileError for a
// refusal, another error for a script that could not run.
func ScriptResult(op, p string, out []byte, code int) error {
	switch code {
	case 0:
		return nil
	case codeRefused:
		i := bytes.LastIndex(out, []byte(refusedMarker))
		if i < 0 {
			break
		}
		what, msg, _ := strings.Cut(string(out[i+len(refusedMarker):]), "\n")
		at := p
		if what == "mkdir" {
			at = path.Dir(p)
		}
		return sandbox.ParseFileRefusal(what, at, msg)
	case codeShortWrite:
		return fmt.Errorf("%s %s: the file does not hold what was sent", op, p)
	case 126, 127:
		return fmt.Errorf("%s %s: the sandbox cannot run its shell's tools (exit %d): %s", op, p, code, clip(out))
	}
	return fmt.Errorf("%s %s: exit %d: %s", op, p, code, clip(out))
}

// clip is the end of a script's output, for an error message.
func clip(out []byte) string {
	s := strings.TrimSpace(string(out))
	if len(s) > 300 {
		s = "…" + s[len(s)-300:]
	}
	return s
}
