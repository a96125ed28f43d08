package agent

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"slices"
)

// ShapeOf digests what the sandboxes of one image share in a fresh
// listing sorted by path: paths, types, modes, owners, sizes, link
// targets, devices, mount roots, extended attributes, flags, link counts
// and which files are hard links of which (LinkGroups) — not inodes or
// times. The host shares
// one fresh listing among the sandboxes of a shape, and a fresh sandbox
// whose shape the host holds sends fingerprints instead of its listing.
func ShapeOf(sorted []Entry) [sha256.Size]byte {
	h := sha256.New()
	var n [8]byte
	groups := LinkGroups(sorted)
	for i, e := range sorted {
		mr := uint64(0)
		if e.MountRoot {
			mr = 1
		}
		for _, v := range []uint64{uint64(len(e.Path)), uint64(len(e.Link)), uint64(e.Mode), uint64(e.UID),
			uint64(e.GID), uint64(e.Size), e.Rdev, mr} {
			binary.LittleEndian.PutUint64(n[:], v)
			h.Write(n[:])
		}
		h.Write([]byte(e.Type))
		h.Write(e.Path)
		h.Write(e.Link)
		leader, ok := groups[i]
		if !ok {
			leader = -1
		}
		h.Write(appendInode(binary.LittleEndian.AppendUint64(nil, uint64(leader)), e))
	}
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}

// SortByPath sorts a listing by path, bytewise (the host's order).
func SortByPath(ents []Entry) {
	slices.SortFunc(ents, func(x, y Entry) int { return bytes.Compare(x.Path, y.Path) })
}

// LinkGroups maps the index of every regular file of a sorted listing
// whose link count is above one to the index of the first file of the
// listing that is the same inode (its own for the first): a restore that
// recreates one of them recreates the group, the others as hard links of
// the first. Inode numbers are the listing's (a listing without them, such
// as the host's shared copy, has no groups to find).
func LinkGroups(sorted []Entry) map[int]int {
	var groups map[int]int
	first := map[[2]uint64]int{}
	for i, e := range sorted {
		if e.Type != TypeFile || e.Nlink < 2 || e.Ino == 0 {
			continue
		}
		if groups == nil {
			groups = map[int]int{}
		}
		k := [2]uint64{e.Dev, e.Ino}
		if _, ok := first[k]; !ok {
			first[k] = i
		}
		groups[i] = first[k]
	}
	return groups
}
