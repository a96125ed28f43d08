package prefix

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// tarScript (args: output file, then paths relative to /) archives exactly
// the paths given, gzipped, and prints the archive's size; anything else
// it prints is tar's complaint (a socket, an unreadable file).
const tarScript = `o=$1; shift
tar -c -f - -C / --no-recursion --numeric-owner "$@" | gzip -1 > "$o" || exit 1
wc -c < "$o"`

// extract is how an archive is unpacked over a fresh sandbox's root.
const extract = "command tar -x -z -f %s -C / --numeric-owner"

// argBatch bounds the paths passed to one tar (the kernel's argument limit).
const argBatch = 256 << 10

// State is the state after a prefix as the cache keeps it: files to
// delete, archives to extract over /, and the session shell's restore.
type State struct {
	Delete   []string
	Archives [][]byte
	// Writes replace Archives when the shell can write every file itself
	// (builtinWrites).
	Writes []fileWrite
	// Paths counts the archived paths.
	Paths int
	// Shell is nil in exec mode.
	Shell *shellDiff
}

// Size is the memory the state holds.
func (st *State) Size() int64 {
	n := int64(0)
	for _, a := range st.Archives {
		n += int64(len(a))
	}
	for _, p := range st.Delete {
		n += int64(len(p))
	}
	for _, w := range st.Writes {
		n += int64(len(w.Path) + len(w.Data))
	}
	if st.Shell != nil {
		n += int64(len(st.Shell.Restore) + len(st.Shell.Options))
		for _, s := range st.Shell.Sections {
			n += int64(len(s))
		}
	}
	return n
}

// ShellKind is the session shell the state was captured from ("bash",
// "sh"), or "" in exec mode.
func (src *Source) ShellKind() string {
	if src.shell == nil {
		return ""
	}
	return src.shell.Shell
}

// Capture reads the state of the source sandbox after the prefix that
// ends with step: what changed against base (the template's fresh scan)
// and the shell. maxBytes bounds the files' size.
func (src *Source) Capture(ctx context.Context, base listing, step int, maxBytes int64) (*State, error) {
	cur, err := src.Scan(ctx)
	if err != nil {
		return nil, err
	}
	ch := diffListing(base, cur, src.t0, src.exclude)
	if len(ch.Opaque) > 0 {
		m := cur[ch.Opaque[0]]
		return nil, notReusable(step, "it changed a directory the sandbox's user cannot list, %s (mode %04o, owner %d:%d; %d such in all): what is inside cannot be carried", ch.Opaque[0], m.Mode, m.UID, m.GID, len(ch.Opaque))
	}
	if ch.Bytes > maxBytes {
		return nil, notReusable(step, "the state after it holds %d bytes of changed files, over the cache's bound of %d per entry", ch.Bytes, maxBytes)
	}
	st := &State{Delete: ch.Delete, Paths: len(ch.Archive)}
	for _, batch := range batches(ch.Archive) {
		a, err := src.archive(ctx, batch, step)
		if err != nil {
			return nil, err
		}
		st.Archives = append(st.Archives, a)
	}
	if ws, ok := src.builtinWrites(st.Archives, st.Delete, base); ok {
		st.Writes, st.Archives = ws, nil
	}
	if src.session {
		dj, err := dumpShell(ctx, src.sb)
		if err != nil {
			return nil, err
		}
		if st.Shell, err = diffShell(src.shell, dj, step); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// batches splits paths into groups whose arguments fit one command line.
func batches(paths []string) [][]string {
	var out [][]string
	var cur []string
	size := 0
	for _, p := range paths {
		if size+len(p)+4 > argBatch && len(cur) > 0 {
			out, cur, size = append(out, cur), nil, 0
		}
		cur = append(cur, p)
		size += len(p) + 4
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// archive tars paths in the source and reads the archive back.
func (src *Source) archive(ctx context.Context, paths []string, step int) ([]byte, error) {
	f := shmPath("tar")
	args := []string{f}
	for _, p := range paths {
		args = append(args, "."+p)
	}
	out, err := helper(ctx, src.sb, tarScript, args...)
	defer src.remove(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("archive the state: %w", err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	size, perr := strconv.ParseInt(lines[len(lines)-1], 10, 64)
	if perr != nil || len(lines) > 1 {
		return nil, notReusable(step, "archiving the state after it: tar reported %s", clipText(out, 300))
	}
	return readFile(ctx, src.sb, f, size)
}

// Apply brings sb, a fresh sandbox of the template the state was captured
// on, to the state: deletions, extractions and the shell restore in one
// command when the archives are small (staged in /dev/shm first when they
// are not), then checks that tar said nothing and that the shell reads
// back as captured. An error wrapping ErrApply means sb is in an unknown
// state; other errors are the sandbox's.
func (st *State) Apply(ctx context.Context, sb Sandbox) error {
	var b strings.Builder
	b.WriteString("__rbx_e=0\n")
	if len(st.Delete) > 0 {
		b.WriteString("command rm -rf --")
		for _, p := range st.Delete {
			b.WriteString(" " + session.Quote(p))
		}
		b.WriteString(" || __rbx_e=1\n")
	}
	inline := 0
	for _, a := range st.Archives {
		inline += len(a) * 4 / 3
	}
	for i, a := range st.Archives {
		if inline <= inlineMax {
			b.WriteString(heredoc("command base64 -d", a, " | "+fmt.Sprintf(extract, "-")+" || __rbx_e=1"))
			continue
		}
		f := shmPath("apply")
		if err := writeFile(ctx, sb, f, a); err != nil {
			return fmt.Errorf("archive %d: %w", i, err)
		}
		fmt.Fprintf(&b, extract+" || __rbx_e=1; command rm -f %s\n", f, f)
	}
	b.WriteString(writeScript(st.Writes))
	b.WriteString("printf '\\036E %s\\n' \"$__rbx_e\"; unset __rbx_e\n")
	if st.Shell != nil {
		b.WriteString(st.Shell.Restore + dumpScript + "\n" + st.Shell.Options + "\n")
	}
	out, err := run(ctx, sb, b.String())
	if err != nil {
		return err
	}
	return st.check(out)
}

// check reads Apply's output.
func (st *State) check(out string) error {
	head, rest, ok := strings.Cut(out, "\036E ")
	status, rest, _ := strings.Cut(rest, "\n")
	switch {
	case !ok:
		return fmt.Errorf("%w: no status in %q", ErrApply, clipText(out, 300))
	case status != "0" || strings.TrimSpace(head) != "":
		return fmt.Errorf("%w: deleting or extracting files: %s", ErrApply, clipText(strings.TrimSpace(head), 300))
	case st.Shell == nil:
		return nil
	}
	dt, err := parseDump(rest)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrApply, err)
	}
	if err := st.Shell.check(dt); err != nil {
		return fmt.Errorf("%w: the shell does not read back as captured: %w", ErrApply, err)
	}
	return nil
}

// IsApplyError reports whether err says the sandbox was left in an
// unknown state by Apply (as opposed to the sandbox failing).
func IsApplyError(err error) bool { return errors.Is(err, ErrApply) }
