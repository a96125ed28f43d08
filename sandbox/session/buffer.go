package session

import (
	"bytes"
	"sync"
)

// LockedBuffer is a bytes.Buffer that an exec's stdout and stderr copies
// and the reader waiting on the exec may use at once: a backend that sends
// both streams to one writer gets two goroutines writing it.
type LockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *LockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// Bytes returns a copy of what was written so far: the copies may still
// be writing.
func (b *LockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte{}, b.buf.Bytes()...)
}
