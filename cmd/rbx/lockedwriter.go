package main

import (
	"io"
	"sync"
)

// lockedWriter serialises writes to w. Commands that write status from
// several goroutines — probe's progress beside the stderr of concurrent
// policy programs, which os/exec copies from goroutines of its own — wrap
// ErrOut in it: os.Stderr tolerates that, an injected buffer does not.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
