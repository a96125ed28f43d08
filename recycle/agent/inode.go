package agent

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// Xattr is one extended attribute of an entry: its full name (namespace
// included: user., security., system. for POSIX ACLs) and raw value.
type Xattr struct {
	Name  string `json:"n"`
	Value []byte `json:"v"`
}

// FlagsCompared are the inode flags (FS_IOC_GETFLAGS) a listing records:
// those a user can set and see (chattr, lsattr) — FS_FL_USER_MODIFIABLE,
// ENCRYPT, VERITY, NOCOW, DAX, PROJINHERIT, CASEFOLD (linux/fs.h). The
// filesystem's own (extents, an htree index, inline data...) differ
// between a file of the image and its restored copy and say nothing a task
// set.
const FlagsCompared = 0x000380FF | 0x00000800 | 0x00100000 | 0x00800000 | 0x02000000 | 0x20000000 | 0x40000000

// at names the entry name in the directory open at dirfd for the l*xattr
// calls: through the magic link of dirfd, never following name itself.
func at(dirfd int, name string) string {
	if dirfd == unix.AT_FDCWD {
		return name
	}
	return "/proc/self/fd/" + strconv.Itoa(dirfd) + "/" + name
}

// readInode adds to e (listed from st, of name in dirfd) what stat does not
// say: every extended attribute readable, sorted by name (trusted.* is
// listed only to CAP_SYS_ADMIN, which the agent lacks: invisible to it and
// to the policy alike), a regular file's link count, and the inode flags
// of a file or directory. Reading a user.* attribute or the flags needs
// read permission, which root lacks on what it does not own without
// DAC_OVERRIDE: such an entry is made root's for the read and given back
// (its ctime moves; st is taken again after).
func readInode(dirfd int, name string, e *Entry, st *unix.Stat_t) error {
	err := readInodeOnce(dirfd, name, e)
	if !errors.Is(err, unix.EACCES) {
		return err
	}
	need := uint32(0o400)
	if e.Type == TypeDir {
		need = 0o500
	}
	if err := chownChmod(dirfd, name, 0, 0, st.Mode&0o7777|need); err != nil {
		return err
	}
	err = readInodeOnce(dirfd, name, e)
	if rerr := chownChmod(dirfd, name, st.Uid, st.Gid, st.Mode&0o7777); err == nil {
		err = rerr
	}
	if err == nil {
		err = unix.Fstatat(dirfd, name, st, unix.AT_SYMLINK_NOFOLLOW)
		e.Ctime = st.Ctim.Nano()
	}
	return err
}

func readInodeOnce(dirfd int, name string, e *Entry) error {
	x, err := readXattrs(at(dirfd, name))
	if err != nil {
		return fmt.Errorf("xattrs: %w", err)
	}
	e.Xattrs = x
	if e.Type != TypeFile && e.Type != TypeDir {
		return nil
	}
	if flagless()[e.Dev] {
		e.NoFlags = true
		return nil
	}
	flags, ok, err := readFlags(dirfd, name)
	e.Flags, e.NoFlags = flags&FlagsCompared, !ok
	return err
}

// readXattrs lists path's extended attributes (not following a final
// symlink), nil when it has none: the common case costs one listxattr.
func readXattrs(path string) ([]Xattr, error) {
	names, err := listXattrs(path)
	if err != nil || len(names) == 0 {
		return nil, err
	}
	out := make([]Xattr, 0, len(names))
	for _, n := range names {
		v, err := getXattr(path, n)
		if errors.Is(err, unix.ENODATA) {
			continue // listed to root but not readable as a value (none here)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		out = append(out, Xattr{Name: n, Value: v})
	}
	return out, nil
}

func listXattrs(path string) ([]string, error) {
	for {
		n, err := unix.Llistxattr(path, nil)
		if err != nil || n == 0 {
			if errors.Is(err, unix.ENOTSUP) {
				return nil, nil // no xattrs on this filesystem: none can be set either
			}
			return nil, err
		}
		buf := make([]byte, n)
		n, err = unix.Llistxattr(path, buf)
		if errors.Is(err, unix.ERANGE) {
			continue // grew meanwhile
		}
		if err != nil {
			return nil, err
		}
		var names []string
		for _, b := range bytes.Split(buf[:n], []byte{0}) {
			if len(b) > 0 {
				names = append(names, string(b))
			}
		}
		slices.Sort(names)
		return names, nil
	}
}

func getXattr(path, name string) ([]byte, error) {
	for {
		n, err := unix.Lgetxattr(path, name, nil)
		if err != nil {
			return nil, err
		}
		buf := make([]byte, n)
		if n, err = unix.Lgetxattr(path, name, buf); !errors.Is(err, unix.ERANGE) {
			return buf[:n], err
		}
	}
}

// readFlags reads the inode flags of the file or directory name in dirfd,
// opened without following a symlink and without blocking. ok is false
// when the filesystem has none (ENOTTY, EOPNOTSUPP): then no one can set
// them there either.
func readFlags(dirfd int, name string) (flags uint32, ok bool, err error) {
	fd, err := openForFlags(dirfd, name)
	if err != nil {
		return 0, false, err
	}
	defer unix.Close(fd)
	flags, err = unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
	if noFlags(err) {
		return 0, false, nil
	}
	return flags, err == nil, err
}

// openForFlags opens name in dirfd for FS_IOC_[GS]ETFLAGS: read-only,
// never following a final symlink, never blocking on a FIFO or device.
func openForFlags(dirfd int, name string) (int, error) {
	return unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
}

func noFlags(err error) bool {
	return errors.Is(err, unix.ENOTTY) || errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS)
}

// setInode gives name in dirfd exactly the extended attributes want
// (removing the others: an ACL is an attribute too) and, when flags are
// supported there, the compared flags of want; anything it cannot set is
// an error, and the recycle fails.
func setInode(dirfd int, name, typ string, want []Xattr, flags uint32, noflags bool) error {
	path := at(dirfd, name)
	have, err := listXattrs(path)
	if err != nil {
		return fmt.Errorf("list xattrs: %w", err)
	}
	for _, n := range have {
		if !slices.ContainsFunc(want, func(x Xattr) bool { return x.Name == n }) {
			if err := unix.Lremovexattr(path, n); err != nil && !errors.Is(err, unix.ENODATA) {
				return fmt.Errorf("remove xattr %s: %w", n, err)
			}
		}
	}
	for _, x := range want {
		if v, err := getXattr(path, x.Name); err == nil && bytes.Equal(v, x.Value) {
			continue
		}
		if err := unix.Lsetxattr(path, x.Name, x.Value, 0); err != nil {
			return fmt.Errorf("set xattr %s: %w", x.Name, err)
		}
	}
	if noflags || (typ != TypeFile && typ != TypeDir) {
		return nil
	}
	return setFlags(dirfd, name, flags)
}

// setFlags sets the compared inode flags of name to flags, keeping the
// filesystem's own; unchanged flags are not written.
func setFlags(dirfd int, name string, flags uint32) error {
	fd, err := openForFlags(dirfd, name)
	if err != nil {
		return fmt.Errorf("open for flags: %w", err)
	}
	defer unix.Close(fd)
	cur, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
	if err != nil {
		return fmt.Errorf("get flags: %w", err)
	}
	if cur&FlagsCompared == flags {
		return nil
	}
	next := cur&^FlagsCompared | flags
	if err := unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, int(next)); err != nil {
		return fmt.Errorf("set flags %#x: %w", flags, err)
	}
	return nil
}

// XattrsEqual reports whether two sorted attribute sets are the same.
func XattrsEqual(a, b []Xattr) bool {
	return slices.EqualFunc(a, b, func(x, y Xattr) bool { return x.Name == y.Name && bytes.Equal(x.Value, y.Value) })
}

// flaglessTypes are filesystems whose inode flags no process can set:
// fuse-overlayfs answers FS_IOC_GETFLAGS (the lower filesystem's flags)
// but FS_IOC_SETFLAGS with ENOTTY (measured: chattr as root in a
// container, "Inappropriate ioctl for device"). Their entries are listed
// without flags (NoFlags), as where the filesystem has none: reading
// them cost an open, an ioctl and a close per file and directory, which
// on FUSE tripled a whole walk of Debian (0.6 s to 1.8 s). The digest
// (digest.go) still reads them by path, so a fuse-overlayfs that ever
// lets a task set one fails the hostile test.
var flaglessTypes = map[string]bool{"fuse.fuse-overlayfs": true}

// flagless is the set of devices (st_dev) of the mounts of flaglessTypes,
// read once per process: a sandbox cannot mount.
var flagless = sync.OnceValue(func() map[uint64]bool {
	out := map[uint64]bool{}
	mounts, err := ReadMounts()
	if err != nil {
		return out // every entry's flags are read: slower, never less
	}
	for _, m := range mounts {
		if !flaglessTypes[m.FSType] {
			continue
		}
		var st unix.Stat_t
		if unix.Stat(string(m.Point), &st) == nil {
			out[st.Dev] = true
		}
	}
	return out
})
