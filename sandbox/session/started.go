package session

import (
	"bytes"
	"io"
	"sync"
)

// StartedWriter passes a stream on to its writer once it has seen the stream
// begin with its sentinel, which it strips, and closes Started then. A backend
// whose exec API returns before the process runs (Kubernetes: the stream
// is dialled through the API server and the kubelet) has the step's
// wrapper print the sentinel to stderr first, so that the step's timeout
// counts from when the step runs, not from when it was asked for: on a
// loaded cluster the dial alone can outlast a short timeout, and a step
// killed before it started would then start after its kill, unkilled.
// A stream that begins otherwise (the wrapper failed before it) is passed
// on whole, and counts as started.
type StartedWriter struct {
	out      io.Writer
	sentinel []byte
	started  chan struct{} // closed when done first turns true in Write

	mu   sync.Mutex
	head []byte // what came of the sentinel so far
	done bool   // the sentinel was seen, missed, or the stream flushed
}

// NewStartedWriter returns a StartedWriter for sentinel to out.
func NewStartedWriter(out io.Writer, sentinel string) *StartedWriter {
	return &StartedWriter{out: out, sentinel: []byte(sentinel), started: make(chan struct{})}
}

// Started is closed once the stream began.
func (w *StartedWriter) Started() <-chan struct{} { return w.started }

// Write implements io.Writer.
func (w *StartedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	if w.done {
		w.mu.Unlock()
		return w.out.Write(p)
	}
	n := len(p)
	w.head = append(w.head, p...)
	if len(w.head) < len(w.sentinel) && bytes.HasPrefix(w.sentinel, w.head) {
		w.mu.Unlock()
		return n, nil // the sentinel, in pieces so far
	}
	rest := w.head
	if bytes.HasPrefix(rest, w.sentinel) {
		rest = rest[len(w.sentinel):]
	}
	w.head, w.done = nil, true
	w.mu.Unlock()
	close(w.started)
	if len(rest) > 0 {
		if _, err := w.out.Write(rest); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// Flush passes on what a stream that ended inside a partial sentinel
// held back.
func (w *StartedWriter) Flush() error {
	w.mu.Lock()
	rest := w.head
	w.head, w.done = nil, true
	w.mu.Unlock()
	if len(rest) > 0 {
		_, err := w.out.Write(rest)
		return err
	}
	return nil
}
