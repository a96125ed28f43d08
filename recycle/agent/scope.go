package agent

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
)

// Scope limits a recycle's walk of the root filesystem to the directories
// the overlay's upper layer holds (read by the host, after every process
// of the sandbox is dead). On fuse-overlayfs any change to the root
// filesystem — a write, chmod, chown, link, rename or deletion, of a file
// or a directory — copies the entry's parent directory and all its
// ancestors up, with the entry or a whiteout for it; a directory of the
// image renamed is copied up whole (no redirect to a lower one). So a
// directory that is not in the upper layer holds its tree as the image
// does. A scoped walk lists every entry of an upper directory (a
// directory among them included: deleted, replaced or hidden by an opaque
// parent, it is missing or changed) and descends only into upper
// directories; the host compares exactly those entries. Other mounts
// (/dev, /dev/shm, the engine's bind-mounted files) are walked whole. A
// nil *Scope walks everything.
type Scope struct {
	dirs map[string]bool
}

// NewScope returns the scope of the root filesystem directories dirs
// (absolute, clean paths; "/" is always walked).
func NewScope(dirs [][]byte) (*Scope, error) {
	s := &Scope{dirs: make(map[string]bool, len(dirs)+1)}
	s.dirs["/"] = true
	for _, d := range dirs {
		if err := CheckPath(d); err != nil {
			return nil, fmt.Errorf("scope: %w", err)
		}
		s.dirs[string(d)] = true
	}
	return s, nil
}

// Len is the number of directories walked.
func (s *Scope) Len() int {
	if s == nil {
		return 0
	}
	return len(s.dirs)
}

// Walked reports whether the root filesystem's directory dir is walked
// (its entries listed).
func (s *Scope) Walked(dir []byte) bool {
	return s == nil || s.dirs[string(dir)]
}

// Lists reports whether a scoped walk lists the root filesystem's entry at
// p: "/", and every entry of a walked directory.
func (s *Scope) Lists(p []byte) bool {
	return s == nil || string(p) == "/" || s.Walked(Parent(p))
}

// Filter returns the indexes of the entries of a listing (a full one, as
// scan takes it: mount roots marked) that a scoped walk lists: every
// entry of the other mounts, and the root filesystem's as Lists says.
func (s *Scope) Filter(ents []Entry) []int {
	var roots [][]byte
	for _, e := range ents {
		if e.MountRoot && string(e.Path) != "/" {
			roots = append(roots, e.Path)
		}
	}
	out := make([]int, 0, len(ents))
	for i, e := range ents {
		if inMount(e.Path, roots) || s.Lists(e.Path) {
			out = append(out, i)
		}
	}
	return out
}

// inMount reports whether p is one of roots or under one.
func inMount(p []byte, roots [][]byte) bool {
	for _, r := range roots {
		if under(p, string(r)) {
			return true
		}
	}
	return false
}

// Quiet is what a scoped recycle writes once every other process is dead
// and every IPC object removed: the host reads the upper layer only then.
const Quiet = "rbx-quiet\n"

// scopeMagic starts a Scope on the wire: the magic, an 8-byte count, then
// each directory as a 4-byte length and its bytes.
const scopeMagic = "rbx-scope-1\n"

// maxScope bounds the directories of a scope.
const maxScope = 1 << 22

// WriteScope writes the directories of a scope (WriteProven's stream,
// after it).
func WriteScope(w io.Writer, dirs [][]byte) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString(scopeMagic)
	bw.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(dirs))))
	for _, d := range dirs {
		bw.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(d))))
		bw.Write(d)
	}
	return bw.Flush()
}

// ReadScope reads what WriteScope wrote.
func ReadScope(r io.Reader) (*Scope, error) {
	magic := make([]byte, len(scopeMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != scopeMagic {
		return nil, fmt.Errorf("scope: bad magic (%v)", err)
	}
	var c [8]byte
	if _, err := io.ReadFull(r, c[:]); err != nil {
		return nil, fmt.Errorf("scope count: %w", err)
	}
	n := binary.LittleEndian.Uint64(c[:])
	if n > maxScope {
		return nil, fmt.Errorf("scope: %d directories, more than %d", n, maxScope)
	}
	dirs := make([][]byte, 0, n)
	for i := uint64(0); i < n; i++ {
		var l [4]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return nil, fmt.Errorf("scope directory %d: %w", i, err)
		}
		size := binary.LittleEndian.Uint32(l[:])
		if size == 0 || size > 4096 {
			return nil, fmt.Errorf("scope directory %d: length %d", i, size)
		}
		d := make([]byte, size)
		if _, err := io.ReadFull(r, d); err != nil {
			return nil, fmt.Errorf("scope directory %d: %w", i, err)
		}
		dirs = append(dirs, d)
	}
	return NewScope(dirs)
}
