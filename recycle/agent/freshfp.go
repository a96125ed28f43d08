package agent

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
)

// FreshFPs is a fresh sandbox's listing sent as fingerprints (scan -fp):
// the listing's shape, and per entry in path order its fingerprint under
// the key the host sent and its mtime. 24 bytes an entry instead of a
// JSON record, when the host already holds a listing of that shape.
type FreshFPs struct {
	Shape  [sha256.Size]byte
	FPs    []FP
	Mtimes []int64
}

// freshBlock is a FreshFPs on the wire (fpBlock): the shape, then 24
// bytes per entry.
var freshBlock = fpBlock{magic: "rbx-fresh-1\n", what: "fresh fingerprints"}

// NewFreshFPs fingerprints a listing (sorted here) under k.
func NewFreshFPs(k Key, ents []Entry) FreshFPs {
	SortByPath(ents)
	f := FreshFPs{Shape: ShapeOf(ents), FPs: make([]FP, len(ents)), Mtimes: make([]int64, len(ents))}
	for i, e := range ents {
		f.FPs[i], f.Mtimes[i] = k.Fingerprint(e), e.Mtime
	}
	return f
}

// WriteFreshFPs writes f: magic, shape, count, then 24 bytes per entry.
func WriteFreshFPs(w io.Writer, f FreshFPs) error {
	if len(f.Mtimes) != len(f.FPs) {
		return errors.New("fresh fingerprints: as many mtimes as entries expected")
	}
	shape := [32]byte(f.Shape)
	bw := freshBlock.write(w, &shape, len(f.FPs))
	var buf [24]byte
	for i, fp := range f.FPs {
		binary.LittleEndian.PutUint64(buf[:8], fp.Path)
		binary.LittleEndian.PutUint64(buf[8:16], fp.Entry)
		binary.LittleEndian.PutUint64(buf[16:], uint64(f.Mtimes[i]))
		if _, err := bw.Write(buf[:]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadFreshFPs reads what WriteFreshFPs wrote, and nothing after it.
func ReadFreshFPs(r io.Reader) (FreshFPs, error) {
	var f FreshFPs
	shape := [32]byte{}
	n, err := freshBlock.read(r, &shape)
	if err != nil {
		return f, err
	}
	f.Shape = shape
	f.FPs, f.Mtimes = make([]FP, n), make([]int64, n)
	var buf [24]byte
	for i := range f.FPs {
		if err := freshBlock.record(r, i, buf[:]); err != nil {
			return f, err
		}
		f.FPs[i] = FP{Path: binary.LittleEndian.Uint64(buf[:8]), Entry: binary.LittleEndian.Uint64(buf[8:16])}
		f.Mtimes[i] = int64(binary.LittleEndian.Uint64(buf[16:]))
	}
	return f, nil
}
