package agent

import (
	"errors"
	"strconv"

	"golang.org/x/sys/unix"
)

// The agent runs as root with the sandbox's capabilities, which lack
// DAC_OVERRIDE and DAC_READ_SEARCH (the engine cannot give an exec more
// than its container's bounding set): root obeys a directory's permission
// bits like any owner. CHOWN and FOWNER remain, so an entry root cannot
// enter is made root's (0700 at least) for the operation and given back its
// owner and mode after: only its ctime tells.

// openAccessible opens name in dirfd with flags, first making it
// accessible to root with the permission bits need (e.g. 0o500) when st
// says it is not; restore gives back the owner and mode.
func openAccessible(dirfd int, name string, st *unix.Stat_t, need uint32, flags int) (fd int, restore func() error, err error) {
	restore = func() error { return nil }
	flags |= unix.O_NOFOLLOW | unix.O_CLOEXEC
	if fd, err = unix.Openat(dirfd, name, flags, 0); !errors.Is(err, unix.EACCES) {
		if err == nil && flags&unix.O_DIRECTORY != 0 && unix.Faccessat(fd, ".", unix.X_OK, unix.AT_EACCESS) != nil {
			unix.Close(fd) // readable but not searchable
		} else {
			return fd, restore, err
		}
	}
	if err := chownChmod(dirfd, name, 0, 0, st.Mode&0o7777|need); err != nil {
		return -1, restore, err
	}
	uid, gid, mode := st.Uid, st.Gid, st.Mode&0o7777
	restore = func() error { return chownChmod(dirfd, name, uid, gid, mode) }
	if fd, err = unix.Openat(dirfd, name, flags, 0); err != nil {
		_ = restore()
		return -1, func() error { return nil }, err
	}
	return fd, restore, nil
}

// chownChmod sets the owner, then the mode, of the non-symlink name in dirfd.
func chownChmod(dirfd int, name string, uid, gid, mode uint32) error {
	if err := unix.Fchownat(dirfd, name, int(uid), int(gid), unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	return chmodNoFollow(dirfd, name, mode)
}

// chmodNoFollow chmods name in dirfd through an O_PATH descriptor of the
// entry itself (fchmodat has no AT_SYMLINK_NOFOLLOW before Linux 6.6).
func chmodNoFollow(dirfd int, name string, mode uint32) error {
	fd, err := unix.Openat(dirfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Fchmodat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), mode, 0)
}
