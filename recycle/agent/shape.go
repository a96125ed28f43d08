package agent

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"slices"
)

// ShapeOf digests what the sandboxes of one image share in a fresh
// listing sorted by path: paths, types, modes, owners, sizes, link
// targets, devices, mount roots — not inodes or times. The host shares
// one fresh listing among the sandboxes of a shape, and a fresh sandbox
// whose shape the host holds sends fingerprints instead of its listing.
func ShapeOf(sorted []Entry) [sha256.Size]byte {
	h := sha256.New()
	var n [8]byte
	for _, e := range sorted {
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
	}
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}

// SortByPath sorts a listing by path, bytewise (the host's order).
func SortByPath(ents []Entry) {
	slices.SortFunc(ents, func(x, y Entry) int { return bytes.Compare(x.Path, y.Path) })
}
