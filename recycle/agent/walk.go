package agent

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"golang.org/x/sys/unix"
)

// maxDepth bounds the walk (each level holds one descriptor open).
const maxDepth = 512

// List lists every entry of every writable mount (see Writable), without
// following symlinks. It walks from / and enters a mount point only when
// that mount is listed: a mount root is reached through its parent
// directory, which the walk has made accessible (a policy may have made
// /etc unsearchable to hide /etc/hosts).
func List(self string) ([]Entry, error) { return ListScoped(self, nil) }

// ListScoped is List limited by scope on the root filesystem (see Scope;
// nil: everything). A directory of the image on the way to a listed mount
// point is passed through without being listed.
func ListScoped(self string, scope *Scope) ([]Entry, error) {
	mounts, err := ReadMounts()
	if err != nil {
		return nil, err
	}
	listed, points := Writable(mounts, self)
	w := walker{points: points, listed: map[string]bool{}, anc: map[string]bool{}, scope: scope, out: new([]Entry)}
	for _, m := range listed {
		w.listed[string(m.Point)] = true
		for q := Parent(m.Point); len(q) > 1; q = Parent(q) {
			w.anc[string(q)] = true
		}
	}
	if !w.listed["/"] {
		return nil, errors.New("the root filesystem is not writable: nothing to recycle")
	}
	if err := w.root(); err != nil {
		return nil, err
	}
	return *w.out, nil
}

type walker struct {
	points map[string]bool // every mount point
	listed map[string]bool // the mount points of listed mounts
	anc    map[string]bool // the proper ancestors of listed mount points, "/" aside
	scope  *Scope          // limits the root filesystem's walk; nil: none
	out    *[]Entry
}

// root lists / and its tree.
func (w walker) root() error {
	var st unix.Stat_t
	if err := unix.Lstat("/", &st); err != nil {
		return err
	}
	e, err := entryOf(unix.AT_FDCWD, "/", []byte("/"), &st)
	if err != nil {
		return err
	}
	e.MountRoot = true
	*w.out = append(*w.out, e)
	fd, restore, err := openAccessible(unix.AT_FDCWD, "/", &st, 0o500, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return err
	}
	return errors.Join(w.dir(fd, []byte("/"), 0, w.scope != nil, false), restore())
}

// dir lists the directory open at fd (and closes fd). scoped: fd is a
// directory of the root filesystem walked under w.scope; transit: one of
// the image's on the way to a listed mount point, of which only that way
// is walked and nothing listed.
func (w walker) dir(fd int, path []byte, depth int, scoped, transit bool) error {
	f := os.NewFile(uintptr(fd), string(path))
	defer f.Close()
	if depth > maxDepth {
		return fmt.Errorf("%q: deeper than %d", path, maxDepth)
	}
	names, err := f.Readdirnames(-1)
	if err != nil {
		return err
	}
	slices.Sort(names)
	for _, name := range names {
		p := Join(path, name)
		point := w.points[string(p)]
		if point && !w.listed[string(p)] {
			continue // /proc, /sys, the agent's own mount...
		}
		if transit && !point && !w.anc[string(p)] {
			continue
		}
		var st unix.Stat_t
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return fmt.Errorf("stat %q: %w", p, err)
		}
		if typeOf(st.Mode) == TypeDir {
			var err error
			switch {
			case !scoped || point || w.scope.Walked(p):
				err = w.subdir(fd, name, p, &st, depth, point, scoped && !point, false, true)
			case w.anc[string(p)]: // on the way to a listed mount point
				err = w.subdir(fd, name, p, &st, depth, false, true, true, !transit)
			case !transit: // listed, its tree as the image holds it (see Scope)
				var e Entry
				if e, err = entryOf(fd, name, p, &st); err == nil {
					*w.out = append(*w.out, e)
				}
			}
			if err != nil {
				return err
			}
			continue
		}
		e, err := entryOf(fd, name, p, &st)
		if err != nil {
			return err
		}
		e.MountRoot = point
		*w.out = append(*w.out, e)
	}
	return nil
}

// subdir walks the directory name in fd: its tree (only the way to the
// listed mount points when transit), then, when listed, its entry — stat
// again after the walk when it had to be made accessible, so the ctime is
// what stays.
func (w walker) subdir(fd int, name string, p []byte, st *unix.Stat_t, depth int, point, scoped, transit, listed bool) error {
	at := len(*w.out)
	if listed {
		*w.out = append(*w.out, Entry{})
	}
	sub, restore, err := openAccessible(fd, name, st, 0o500, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return fmt.Errorf("open %q: %w", p, err)
	}
	if err := errors.Join(w.dir(sub, p, depth+1, scoped, transit), restore()); err != nil {
		return err
	}
	if !listed {
		return nil
	}
	if err := unix.Fstatat(fd, name, st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fmt.Errorf("stat %q: %w", p, err)
	}
	e, err := entryOf(fd, name, p, st)
	e.MountRoot = point
	(*w.out)[at] = e
	return err
}

func readlink(dirfd int, name string) (string, error) {
	buf := make([]byte, unix.PathMax+1)
	n, err := unix.Readlinkat(dirfd, name, buf)
	if err != nil {
		return "", err
	}
	if n > unix.PathMax {
		return "", errors.New("symlink target too long")
	}
	return string(buf[:n]), nil
}

// entryOf builds the entry of p, name in dirfd, from its lstat st and
// what stat does not say (readInode).
func entryOf(dirfd int, name string, p []byte, st *unix.Stat_t) (Entry, error) {
	e := Entry{
		Path: p, Type: typeOf(st.Mode), Mode: st.Mode & 0o7777, UID: st.Uid, GID: st.Gid, Size: st.Size,
		Ctime: st.Ctim.Nano(), Mtime: st.Mtim.Nano(), Ino: st.Ino, Dev: st.Dev,
	}
	switch e.Type {
	case TypeSymlink:
		t, err := readlink(dirfd, name)
		if err != nil {
			return Entry{}, fmt.Errorf("readlink %q: %w", p, err)
		}
		e.Link = []byte(t)
	case TypeChar, TypeBlock:
		e.Rdev = st.Rdev
	case TypeFile:
		e.Nlink = uint32(st.Nlink)
	case "":
		return Entry{}, fmt.Errorf("%q: unknown file type %o", p, st.Mode)
	}
	if err := readInode(dirfd, name, &e, st); err != nil {
		return Entry{}, fmt.Errorf("%q: %w", p, err)
	}
	return e, nil
}

func typeOf(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return TypeFile
	case unix.S_IFDIR:
		return TypeDir
	case unix.S_IFLNK:
		return TypeSymlink
	case unix.S_IFCHR:
		return TypeChar
	case unix.S_IFBLK:
		return TypeBlock
	case unix.S_IFIFO:
		return TypeFifo
	case unix.S_IFSOCK:
		return TypeSocket
	}
	return ""
}
