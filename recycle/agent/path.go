package agent

import (
	"bytes"
	"fmt"
	"strings"
)

// CheckPath reports whether p is an absolute, clean path: no empty, "."
// or ".." component, no NUL, no trailing slash (except "/" itself).
func CheckPath(p []byte) error {
	if len(p) == 0 || p[0] != '/' {
		return fmt.Errorf("path %q: not absolute", p)
	}
	if len(p) > 4096 || bytes.IndexByte(p, 0) >= 0 {
		return fmt.Errorf("path %q: too long or holds NUL", p)
	}
	if len(p) == 1 {
		return nil
	}
	for _, c := range bytes.Split(p[1:], []byte("/")) {
		if len(c) == 0 || string(c) == "." || string(c) == ".." {
			return fmt.Errorf("path %q: not clean", p)
		}
	}
	return nil
}

// Check reports whether e is well formed.
func (e *Entry) Check() error {
	if err := CheckPath(e.Path); err != nil {
		return err
	}
	switch e.Type {
	case TypeFile, TypeDir, TypeChar, TypeBlock, TypeFifo, TypeSocket:
		if len(e.Link) != 0 {
			return fmt.Errorf("path %q: link target on a non-symlink", e.Path)
		}
	case TypeSymlink:
	default:
		return fmt.Errorf("path %q: unknown type %q", e.Path, e.Type)
	}
	if e.Mode&^0o7777 != 0 || e.Size < 0 {
		return fmt.Errorf("path %q: bad mode %o or size %d", e.Path, e.Mode, e.Size)
	}
	if e.Flags&^FlagsCompared != 0 || (e.Nlink != 0 && e.Type != TypeFile) {
		return fmt.Errorf("path %q: bad flags %#x or link count %d", e.Path, e.Flags, e.Nlink)
	}
	return CheckXattrs(e.Xattrs)
}

// CheckXattrs checks a set of extended attributes is sorted by name, each
// named once, with a name the kernel accepts.
func CheckXattrs(xs []Xattr) error {
	for i, x := range xs {
		if x.Name == "" || len(x.Name) > 255 || strings.IndexByte(x.Name, 0) >= 0 {
			return fmt.Errorf("bad xattr name %q", x.Name)
		}
		if i > 0 && xs[i-1].Name >= x.Name {
			return fmt.Errorf("xattrs not sorted or repeated at %q", x.Name)
		}
	}
	return nil
}

// Parent returns the directory holding p ("/" for "/a" and "/").
func Parent(p []byte) []byte {
	i := bytes.LastIndexByte(p, '/')
	if i <= 0 {
		return []byte("/")
	}
	return p[:i]
}

// Base returns p's last component.
func Base(p []byte) []byte { return p[bytes.LastIndexByte(p, '/')+1:] }

// Join appends name to dir.
func Join(dir []byte, name string) []byte {
	out := make([]byte, 0, len(dir)+1+len(name))
	out = append(out, dir...)
	if len(dir) != 1 {
		out = append(out, '/')
	}
	return append(out, name...)
}
