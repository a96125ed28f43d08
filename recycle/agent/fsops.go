package agent

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// openParent opens the directory holding p one component at a time,
// refusing any symlink on the way (a policy may have planted one where a
// restore writes): the parent must be a real directory reached through
// real directories. A directory on the way that root cannot search is
// made searchable for the time being; restore gives it back.
func openParent(p []byte) (fd int, name string, restore func() error, err error) {
	var undo []func() error
	restore = func() error {
		var errs []error
		for i := len(undo) - 1; i >= 0; i-- {
			errs = append(errs, undo[i]())
		}
		return errors.Join(errs...)
	}
	dir, name := Parent(p), string(Base(p))
	if string(p) == "/" {
		dir, name = []byte("/"), "." // for its metadata only (see applyOp)
	}
	fd, err = unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, "", restore, err
	}
	for _, c := range bytes.Split(dir[1:], []byte("/")) {
		if len(c) == 0 {
			continue
		}
		if err == nil {
			var u func() error
			if u, err = searchable(fd); u != nil {
				undo = append(undo, u)
			}
		}
		var next int
		if err == nil {
			next, err = unix.Openat2(fd, string(c), &unix.OpenHow{
				Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC,
				Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
			})
		}
		unix.Close(fd)
		if err != nil {
			return -1, "", restore, fmt.Errorf("open parent of %q: %w", p, errors.Join(err, restore()))
		}
		fd = next
	}
	return fd, name, restore, nil
}

// searchable makes the directory open at fd searchable by root when it is
// not; the returned func gives back its owner and mode.
func searchable(fd int) (func() error, error) {
	self := "/proc/self/fd/" + strconv.Itoa(fd)
	if unix.Faccessat(unix.AT_FDCWD, self, unix.X_OK|unix.W_OK, unix.AT_EACCESS) == nil {
		return nil, nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	if err := setOwnerMode(self, 0, 0, st.Mode&0o7777|0o700); err != nil {
		return nil, err
	}
	return func() error { return setOwnerMode(self, st.Uid, st.Gid, st.Mode&0o7777) }, nil
}

// setOwnerMode sets the owner, then the mode, of what path names (a
// /proc/self/fd link).
func setOwnerMode(path string, uid, gid, mode uint32) error {
	if err := unix.Fchownat(unix.AT_FDCWD, path, int(uid), int(gid), 0); err != nil {
		return err
	}
	return unix.Fchmodat(unix.AT_FDCWD, path, mode, 0)
}

// removeAt removes name in dirfd and, for a directory, everything under it,
// never following a symlink. A missing name is not an error.
func removeAt(dirfd int, name string) error {
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return unix.Unlinkat(dirfd, name, 0)
	}
	// It goes away: make it root's to empty it, nothing to give back.
	if err := chownChmod(dirfd, name, 0, 0, 0o700); err != nil {
		return err
	}
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), name)
	names, err := f.Readdirnames(-1)
	if err == nil {
		for _, n := range names {
			if err = removeAt(fd, n); err != nil {
				break
			}
		}
	}
	f.Close()
	if err != nil {
		return err
	}
	return unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR)
}

// setMeta gives name in dirfd, which must be of type op.Type, op's owner,
// mode, extended attributes, inode flags and (when op.Mtime != 0) mtime:
// chown first, since it clears set-id bits and a file capability; the
// attributes after the mode, since setting an ACL sets the mode's group
// bits and a chmod rewrites an ACL's mask.
func setMeta(dirfd int, name string, op Op) error {
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	if got := typeOf(st.Mode); got != op.Type {
		return fmt.Errorf("type %s, want %s", got, op.Type)
	}
	if err := unix.Fchownat(dirfd, name, int(op.UID), int(op.GID), unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fmt.Errorf("chown: %w", err)
	}
	if op.Type != TypeSymlink {
		if err := chmodNoFollow(dirfd, name, op.Mode); err != nil {
			return fmt.Errorf("chmod: %w", err)
		}
	}
	if err := setInode(dirfd, name, op.Type, op.Xattrs, op.Flags, op.NoFlags); err != nil {
		return err
	}
	if op.Mtime == 0 {
		return nil
	}
	ts := []unix.Timespec{{Nsec: unix.UTIME_OMIT}, unix.NsecToTimespec(op.Mtime)}
	return unix.UtimesNanoAt(dirfd, name, ts, unix.AT_SYMLINK_NOFOLLOW)
}
