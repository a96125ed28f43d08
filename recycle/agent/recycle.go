package agent

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// recycleCmd is one whole recycle in one exec, talking with the host over
// stdin and stdout:
//
//  1. kill every other process and remove IPC objects;
//  2. read the Proven fingerprints (stdin), walk every writable mount and
//     write the changes (a Report frame: changed and new entries, missing
//     indexes) — unchanged entries are not sent; with -scoped, first say
//     Quiet, and walk the root filesystem within the Scope read after the
//     fingerprints (the host sends the fingerprints of what it lists);
//  3. read the restore plan (stdin), apply it, and write a second frame:
//     the entries of every path the plan set and of their ancestors (the
//     only paths the apply touched: no other process exists meanwhile),
//     what it wrote, and the processes and IPC objects left;
//  4. with -session, once the host accepted the restore, read a
//     SessionSpec and become the next session shell (see execSession):
//     the recycle's exec is the session's, a second exec is saved.
func recycleCmd(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("recycle", flag.ContinueOnError)
	timeout := fs.Duration("timeout", 5*time.Second, "how long processes may take to die")
	shell := fs.Bool("session", false, "then read a SessionSpec and become the session shell")
	scoped := fs.Bool("scoped", false, "once quiet, say so (Quiet) and read a Scope after the fingerprints: walk the root filesystem's upper directories only")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var rep Report
	var err error
	if rep.State, err = quiesce(*timeout); err != nil {
		return err
	}
	if *scoped {
		if _, err := io.WriteString(stdout, Quiet); err != nil {
			return err
		}
	}
	in := bufio.NewReaderSize(stdin, 1<<16)
	proven, err := ReadProven(in)
	if err != nil {
		return err
	}
	var scope *Scope
	if *scoped {
		if scope, err = ReadScope(in); err != nil {
			return err
		}
	}
	ents, err := ListScoped(selfMount(), scope)
	if err != nil {
		return err
	}
	if rep.Entries, rep.Missing, err = Changes(proven, ents); err != nil {
		return err
	}
	if err := WriteFrame(stdout, rep); err != nil {
		return err
	}
	applied, err := Apply(in)
	if err != nil {
		return err
	}
	after := Report{Sums: applied.Sums}
	if after.Entries, err = statTouched(applied); err != nil {
		return err
	}
	if after.State, err = leftState(); err != nil {
		return err
	}
	if err := WriteFrame(stdout, after); err != nil || !*shell {
		return err
	}
	return execSession(in)
}

// Changes compares a listing with the proven fingerprints: the entries
// that are new or differ, and the indexes of proven entries not listed.
func Changes(p Proven, ents []Entry) (changed []Entry, missing []int, err error) {
	at := make(map[uint64]int, len(p.FPs))
	for i, f := range p.FPs {
		if _, dup := at[f.Path]; dup {
			return nil, nil, fmt.Errorf("proven: entry %d repeats a path", i)
		}
		at[f.Path] = i
	}
	seen := make([]bool, len(p.FPs))
	for _, e := range ents {
		fp := p.Key.Fingerprint(e)
		i, ok := at[fp.Path]
		if ok {
			if seen[i] {
				return nil, nil, fmt.Errorf("%q: two listed paths share a fingerprint", e.Path)
			}
			seen[i] = true
			if p.FPs[i].Entry == fp.Entry {
				continue
			}
		}
		changed = append(changed, e)
	}
	for i, s := range seen {
		if !s {
			missing = append(missing, i)
		}
	}
	return changed, missing, nil
}

// statTouched lists every path the apply set, and their ancestors, deepest
// first: opening a path may make an ancestor searchable for a moment
// (changing its ctime), so an ancestor is listed after all below it.
func statTouched(a Applied) ([]Entry, error) {
	set := map[string]bool{}
	for _, p := range slices.Concat(a.Set, a.Removed) {
		for q := p; ; q = Parent(q) {
			set[string(q)] = true
			if len(q) == 1 {
				break
			}
		}
	}
	for _, p := range a.Removed {
		delete(set, string(p))
	}
	paths := make([]string, 0, len(set))
	for p := range set {
		paths = append(paths, p)
	}
	slices.SortFunc(paths, func(x, y string) int {
		if d := bytes.Count([]byte(y), []byte("/")) - bytes.Count([]byte(x), []byte("/")); d != 0 {
			return d
		}
		return bytes.Compare([]byte(x), []byte(y))
	})
	out := make([]Entry, 0, len(paths))
	for _, p := range paths {
		e, err := statPath([]byte(p))
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	for _, p := range a.Removed {
		// ENOTDIR: a component on the way is a file again (a directory
		// that replaced a file was removed, the file restored).
		if _, err := statPath(p); !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.ENOTDIR) {
			return nil, fmt.Errorf("%q: still there after its removal (%v)", p, err)
		}
	}
	return out, nil
}

// statPath lists one path, reached without following any symlink.
func statPath(p []byte) (Entry, error) {
	fd, name, restore, err := openParent(p)
	if err != nil {
		return Entry{}, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	e := Entry{}
	if err = unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil {
		e, err = entryOf(fd, name, p, &st)
	}
	if rerr := restore(); err == nil && rerr != nil {
		err = rerr
	}
	if err != nil {
		return Entry{}, fmt.Errorf("stat %q: %w", p, err)
	}
	return e, nil
}

// quiesce kills every other process (waiting up to timeout for them to
// go) and removes every IPC object: what a listing needs before it can be
// trusted.
func quiesce(timeout time.Duration) (State, error) {
	var st State
	var err error
	if st.Killed, err = KillAll(timeout); err != nil {
		return st, err
	}
	st.IPCRemoved, err = RemoveIPC()
	return st, err
}

// leftState counts the processes and IPC objects left.
func leftState() (State, error) {
	var st State
	procs, err := Procs()
	if err != nil {
		return st, err
	}
	st.Others = len(withoutInit(procs))
	ipc, err := IPCObjects()
	if err != nil {
		return st, err
	}
	st.IPC = len(ipc)
	return st, nil
}
