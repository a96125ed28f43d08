package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Digest writes, for tests, one line per listed entry (type, mode, uid,
// gid, size, link target, SHA-256 of a regular file's content; never
// times or inode numbers; no size for directories, whose size depends on
// their history on most filesystems), one per process but the caller
// (comm and command line, no pid); a file's link count, the inode flags
// compared, every extended attribute (name and value) where there are any and per IPC object, then the SHA-256 of
// all of them. A mount-root file (/etc/hostname, /etc/hosts, written by
// the engine per container) shows its metadata but not its content.
func Digest(w io.Writer, self string) error {
	ents, err := List(self)
	if err != nil {
		return err
	}
	h := sha256.New()
	out := io.MultiWriter(w, h)
	for _, e := range ents {
		sum, size := "-", strconv.FormatInt(e.Size, 10)
		if e.Type == TypeDir {
			size = "-"
		}
		if e.Type == TypeFile && !e.MountRoot {
			if sum, err = fileSum(string(e.Path)); err != nil {
				return err
			}
		}
		fmt.Fprintf(out, "%s %04o %d:%d %s %s %q -> %q%s\n", e.Type, e.Mode, e.UID, e.GID, size, sum, e.Path, e.Link, inodeDigest(e))
	}
	procs, err := Procs()
	if err != nil {
		return err
	}
	var lines []string
	for _, p := range procs {
		lines = append(lines, fmt.Sprintf("proc %q %q\n", p.Comm, p.Cmdline))
	}
	ipc, err := IPCObjects()
	if err != nil {
		return err
	}
	for _, o := range ipc {
		lines = append(lines, "ipc "+o+"\n")
	}
	slices.Sort(lines)
	for _, l := range lines {
		io.WriteString(out, l)
	}
	_, err = fmt.Fprintf(w, "total %s\n", hex.EncodeToString(h.Sum(nil)))
	return err
}

// inodeDigest reads again what readInode adds to an entry — link count,
// flags, extended attributes — by path, apart from the listing (a witness
// of it: a listing that missed them would not hide them from the digest).
func inodeDigest(e Entry) string {
	var b strings.Builder
	p := string(e.Path)
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return " " + err.Error()
	}
	if e.Type == TypeFile && st.Nlink > 1 {
		fmt.Fprintf(&b, " nlink=%d", st.Nlink)
	}
	if e.Type == TypeFile || e.Type == TypeDir {
		if flags, ok, err := readFlags(unix.AT_FDCWD, p); err != nil {
			fmt.Fprintf(&b, " flags:%v", err)
		} else if !ok {
			b.WriteString(" noflags")
		} else if flags&FlagsCompared != 0 {
			fmt.Fprintf(&b, " flags=%#x", flags&FlagsCompared)
		}
	}
	xs, err := readXattrs(p)
	if err != nil {
		fmt.Fprintf(&b, " xattrs:%v", err)
	}
	for _, x := range xs {
		fmt.Fprintf(&b, " %s=%x", x.Name, x.Value)
	}
	return b.String()
}

func fileSum(path string) (string, error) {
	h := sha256.New()
	if err := withFile(path, func(f *os.File) error { _, err := io.Copy(h, f); return err }); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// readFile reads the regular file at path without following symlinks.
func readFile(path string) ([]byte, error) {
	var data []byte
	err := withFile(path, func(f *os.File) (err error) { data, err = io.ReadAll(io.LimitReader(f, MaxKept+1)); return err })
	return data, err
}

// withFile runs fn on the regular file at path, opened without following
// symlinks (and made readable to root for the time being when it was not).
func withFile(path string, fn func(*os.File) error) error {
	dirfd, name, undo, err := openParent([]byte(path))
	if err != nil {
		return err
	}
	defer unix.Close(dirfd)
	defer undo()
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	if typeOf(st.Mode) != TypeFile {
		return fmt.Errorf("%q: not a regular file", path)
	}
	fd, restore, err := openAccessible(dirfd, name, &st, 0o400, unix.O_RDONLY|unix.O_NONBLOCK)
	if err != nil {
		return fmt.Errorf("open %q: %w", path, err)
	}
	f := os.NewFile(uintptr(fd), path)
	err = fn(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("read %q: %w", path, err)
	}
	return restore()
}
