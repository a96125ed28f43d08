package agent

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// maxProven bounds the entries of one fingerprint block (a listing of
// 16 Mi entries is far beyond any image).
const maxProven = 1 << 24

// fpBlock is the wire form shared by Proven and FreshFPs: a magic line, a
// 32-byte head (key or shape), a count, then count records of a fixed size.
type fpBlock struct {
	magic string
	what  string // in errors
}

// write writes the block's header; the caller writes the records to bw,
// then flushes it.
func (b fpBlock) write(w io.Writer, head *[32]byte, n int) *bufio.Writer {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString(b.magic)
	bw.Write(head[:])
	var c [8]byte
	binary.LittleEndian.PutUint64(c[:], uint64(n))
	bw.Write(c[:])
	return bw
}

// read reads the block's header into head and returns its count; then
// record reads each record of len(rec) bytes.
func (b fpBlock) read(r io.Reader, head *[32]byte) (int, error) {
	magic := make([]byte, len(b.magic))
	if _, err := io.ReadFull(r, magic); err != nil {
		return 0, fmt.Errorf("%s: %w", b.what, err)
	}
	if string(magic) != b.magic {
		return 0, fmt.Errorf("%s: %w", b.what, errors.New("bad magic"))
	}
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return 0, fmt.Errorf("%s: %w", b.what, err)
	}
	var c [8]byte
	if _, err := io.ReadFull(r, c[:]); err != nil {
		return 0, fmt.Errorf("%s count: %w", b.what, err)
	}
	n := binary.LittleEndian.Uint64(c[:])
	if n > maxProven {
		return 0, fmt.Errorf("%s: %d entries, more than %d", b.what, n, maxProven)
	}
	return int(n), nil
}

func (b fpBlock) record(r io.Reader, i int, rec []byte) error {
	if _, err := io.ReadFull(r, rec); err != nil {
		return fmt.Errorf("%s entry %d: %w", b.what, i, err)
	}
	return nil
}
