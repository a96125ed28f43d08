package agent

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
)

// maxFrame bounds one report frame on the wire (gzipped).
const maxFrame = 1 << 30

// WriteFrame writes r gzipped, after its length (8 bytes): a recycle
// writes two reports on one stream, the host reads the first while the
// agent waits for the plan.
func WriteFrame(w io.Writer, r Report) error {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := WriteReport(zw, r); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(buf.Len()))
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// ReadFrame reads one frame WriteFrame wrote.
func ReadFrame(r io.Reader) (Report, error) {
	var n [8]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return Report{}, fmt.Errorf("frame: %w", err)
	}
	size := binary.LittleEndian.Uint64(n[:])
	if size > maxFrame {
		return Report{}, fmt.Errorf("frame: %d bytes, more than %d", size, maxFrame)
	}
	zr, err := gzip.NewReader(io.LimitReader(r, int64(size)))
	if err != nil {
		return Report{}, fmt.Errorf("frame: %w", err)
	}
	rep, err := ReadReport(zr)
	if err != nil {
		return Report{}, err
	}
	// Drain the gzip trailer so the next frame starts where it should.
	if _, err := io.Copy(io.Discard, zr); err != nil {
		return Report{}, fmt.Errorf("frame: %w", err)
	}
	return rep, nil
}
