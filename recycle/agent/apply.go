package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// Applied is what Apply did: the SHA-256 of each file it wrote (as
// written), the paths it removed, and the paths it created or set the
// metadata of, in plan order.
type Applied struct {
	Sums    []Sum
	Removed [][]byte
	Set     [][]byte
}

// Apply runs every op of the plan on r.
func Apply(r io.Reader) (Applied, error) {
	pr := NewPlanReader(r)
	var a Applied
	for {
		op, content, err := pr.Next()
		if errors.Is(err, io.EOF) {
			return a, nil
		}
		if err != nil {
			return a, err
		}
		sum, err := applyOp(op, content)
		if err != nil {
			return a, fmt.Errorf("%s %q: %w", op.Op, op.Path, err)
		}
		if sum != "" {
			a.Sums = append(a.Sums, Sum{Path: op.Path, SHA256: sum})
		}
		if op.Op == OpRemove {
			a.Removed = append(a.Removed, op.Path)
		} else {
			a.Set = append(a.Set, op.Path)
		}
	}
}

func applyOp(op Op, content io.Reader) (string, error) {
	dirfd, name, undo, err := openParent(op.Path)
	if err != nil {
		return "", err
	}
	defer unix.Close(dirfd)
	if name == "." && op.Op != OpMeta {
		return "", errors.Join(errors.New("/ can only have its metadata set"), undo())
	}
	restore, err := parentAccess(dirfd)
	if err != nil {
		return "", fmt.Errorf("open parent: %w", errors.Join(err, undo()))
	}
	sum, err := applyAt(dirfd, name, op, content)
	return sum, errors.Join(err, restore(), undo())
}

// parentAccess makes the directory open at dirfd root's with 0700 at
// least for the op; restore gives back its owner and mode.
func parentAccess(dirfd int) (restore func() error, err error) {
	u, err := searchable(dirfd)
	if u == nil {
		u = func() error { return nil }
	}
	return u, err
}

func applyAt(dirfd int, name string, op Op, content io.Reader) (string, error) {
	switch op.Op {
	case OpRemove:
		return "", removeAt(dirfd, name)
	case OpMeta:
		return "", setMeta(dirfd, name, op)
	}
	if op.Type == TypeDir {
		var st unix.Stat_t
		if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil || typeOf(st.Mode) != TypeDir {
			if err := removeAt(dirfd, name); err != nil {
				return "", err
			}
			if err := unix.Mkdirat(dirfd, name, 0o700); err != nil {
				return "", err
			}
		}
		return "", setMeta(dirfd, name, op)
	}
	if op.InPlace {
		return writeInPlace(dirfd, name, op, content)
	}
	if err := removeAt(dirfd, name); err != nil {
		return "", err
	}
	if op.HardLink != nil {
		return "", hardLink(op.HardLink, dirfd, name)
	}
	sum, err := create(dirfd, name, op, content)
	if err != nil {
		return "", err
	}
	return sum, setMeta(dirfd, name, op)
}

// create makes a new entry of op's type at name (which does not exist).
func create(dirfd int, name string, op Op, content io.Reader) (string, error) {
	switch op.Type {
	case TypeSymlink:
		return "", unix.Symlinkat(string(op.Link), dirfd, name)
	case TypeFifo:
		return "", unix.Mkfifoat(dirfd, name, 0o600)
	case TypeChar, TypeBlock:
		kind := uint32(unix.S_IFCHR)
		if op.Type == TypeBlock {
			kind = unix.S_IFBLK
		}
		return "", unix.Mknodat(dirfd, name, kind|0o600, int(op.Rdev))
	case TypeFile:
		fd, err := unix.Openat(dirfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err != nil {
			return "", err
		}
		return writeFD(fd, name, op.Size, content)
	}
	return "", fmt.Errorf("cannot create type %q", op.Type)
}

// writeInPlace rewrites the existing regular file name (a mount root such
// as a bind-mounted /etc/hosts, which cannot be replaced).
func writeInPlace(dirfd int, name string, op Op, content io.Reader) (string, error) {
	if op.Type != TypeFile {
		return "", fmt.Errorf("in-place write of type %q", op.Type)
	}
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return "", err
	}
	if typeOf(st.Mode) != TypeFile {
		return "", fmt.Errorf("not a regular file")
	}
	// Its owner and mode are set after the write anyway.
	fd, _, err := openAccessible(dirfd, name, &st, 0o600, unix.O_WRONLY|unix.O_TRUNC|unix.O_NONBLOCK)
	if err != nil {
		return "", err
	}
	sum, err := writeFD(fd, name, op.Size, content)
	if err != nil {
		return "", err
	}
	return sum, setMeta(dirfd, name, op)
}

// writeFD writes size bytes of content to fd, closes it and returns their SHA-256.
func writeFD(fd int, name string, size int64, content io.Reader) (string, error) {
	f := os.NewFile(uintptr(fd), name)
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != size {
		err = fmt.Errorf("wrote %d bytes, want %d", n, size)
	}
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hardLink links name in dirfd to the regular file at target (reached
// without following a symlink, as every path of a plan).
func hardLink(target []byte, dirfd int, name string) error {
	tfd, tname, undo, err := openParent(target)
	if err != nil {
		return err
	}
	defer unix.Close(tfd)
	var st unix.Stat_t
	if err = unix.Fstatat(tfd, tname, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil && typeOf(st.Mode) != TypeFile {
		err = fmt.Errorf("hard link to %q: not a regular file", target)
	}
	if err == nil {
		err = unix.Linkat(tfd, tname, dirfd, name, 0)
	}
	return errors.Join(err, undo())
}
