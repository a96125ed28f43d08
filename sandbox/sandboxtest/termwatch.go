package sandboxtest

import (
	"io"
	"strings"
	"sync"
)

// TermWatch keeps what a terminal printed, read in the background until
// it ends, for tests to wait on.
type TermWatch struct {
	mu    sync.Mutex
	out   strings.Builder
	ended chan struct{}
}

// WatchTerminal starts reading p.
func WatchTerminal(p io.Reader) *TermWatch {
	w := &TermWatch{ended: make(chan struct{})}
	go func() {
		defer close(w.ended)
		buf := make([]byte, 4096)
		for {
			n, err := p.Read(buf)
			w.mu.Lock()
			w.out.Write(buf[:n])
			w.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return w
}

// Shows returns a condition (for require.Eventually) that holds once the
// terminal printed what.
func (w *TermWatch) Shows(what string) func() bool {
	return func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return strings.Contains(w.out.String(), what)
	}
}

// Ended is closed once the terminal's output ends.
func (w *TermWatch) Ended() <-chan struct{} { return w.ended }
