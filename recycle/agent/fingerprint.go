package agent

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"io"
)

// Key is a sandbox's secret fingerprint key. The host draws it when the
// sandbox is created and sends it to the agent only inside a recycle,
// after every other process is dead: a policy never sees it, so it cannot
// make a changed entry or a planted path share a fingerprint with a
// proven one.
type Key [32]byte

// FP is the fingerprint of one proven entry: a keyed hash of its path and
// one of everything Unchanged compares (8 bytes each: a policy that does
// not know the key has a 2^-64 chance per entry to pass a change).
type FP struct {
	Path  uint64
	Entry uint64
}

// Fingerprint returns e's fingerprint under k.
func (k Key) Fingerprint(e Entry) FP {
	return FP{Path: k.PathKey(e.Path), Entry: k.sum('e', entryBytes(e))}
}

// PathKey is the keyed hash of a path alone.
func (k Key) PathKey(p []byte) uint64 { return k.sum('p', p) }

func (k Key) sum(tag byte, data []byte) uint64 {
	h := sha256.New()
	h.Write(k[:])
	h.Write([]byte{tag})
	h.Write(data)
	var out [sha256.Size]byte
	return binary.LittleEndian.Uint64(h.Sum(out[:0]))
}

// entryBytes serializes every field of e that Unchanged compares, and its
// path, unambiguously.
func entryBytes(e Entry) []byte {
	b := make([]byte, 0, 128+len(e.Path)+len(e.Link))
	b = append(b, e.Type...)
	for _, v := range []uint64{uint64(e.Mode), uint64(e.UID), uint64(e.GID), uint64(e.Size), e.Rdev,
		uint64(e.Ctime), uint64(e.Mtime), e.Ino, e.Dev, uint64(len(e.Link)), uint64(len(e.Path))} {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	b = append(b, e.Link...)
	b = append(b, e.Path...)
	return appendInode(b, e)
}

// appendInode serializes what readInode adds to an entry: flags, link
// count and every extended attribute (an entry without any adds 16 bytes).
func appendInode(b []byte, e Entry) []byte {
	nf := uint64(0)
	if e.NoFlags {
		nf = 1
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(e.Flags)|nf<<32|uint64(e.Nlink)<<33)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(e.Xattrs)))
	for _, x := range e.Xattrs {
		b = binary.LittleEndian.AppendUint64(b, uint64(len(x.Name)))
		b = append(b, x.Name...)
		b = binary.LittleEndian.AppendUint64(b, uint64(len(x.Value)))
		b = append(b, x.Value...)
	}
	return b
}

// Proven is what the host sends a recycle: the key and the fingerprint of
// every entry of the sandbox's last proven listing, in the host's order
// (a changes report names missing entries by their index here).
type Proven struct {
	Key Key
	FPs []FP
}

// provenBlock is a Proven on the wire (fpBlock): the key, then 16 bytes
// per entry.
var provenBlock = fpBlock{magic: "rbx-proven-1\n", what: "proven"}

// WriteProven writes p: magic, key, count, then 16 bytes per entry.
func WriteProven(w io.Writer, p Proven) error {
	key := [32]byte(p.Key)
	bw := provenBlock.write(w, &key, len(p.FPs))
	var buf [16]byte
	for _, f := range p.FPs {
		binary.LittleEndian.PutUint64(buf[:8], f.Path)
		binary.LittleEndian.PutUint64(buf[8:], f.Entry)
		if _, err := bw.Write(buf[:]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadProven reads what WriteProven wrote. The plan follows on the same
// stream: pass the one buffered reader that will read it too.
func ReadProven(r *bufio.Reader) (Proven, error) {
	var key [32]byte
	n, err := provenBlock.read(r, &key)
	if err != nil {
		return Proven{}, err
	}
	p := Proven{Key: Key(key), FPs: make([]FP, n)}
	var buf [16]byte
	for i := range p.FPs {
		if err := provenBlock.record(r, i, buf[:]); err != nil {
			return p, err
		}
		p.FPs[i] = FP{Path: binary.LittleEndian.Uint64(buf[:8]), Entry: binary.LittleEndian.Uint64(buf[8:])}
	}
	return p, nil
}
