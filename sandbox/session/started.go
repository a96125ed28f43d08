package session

import (
	"bytes"
	"io"
	"sync"
)

// StartedWriter passes a stream on to Out once it has seen the stream
// begin with Sentinel, which it strips, and closes Started then. A backend
// whose exec API returns before the process runs (Kubernetes: the stream
// is dialled through the API server and the kubelet) has the step's
// wrapper print the sentinel to stderr first, so that the step's timeout
// counts from when the step runs, not from when it was asked for: on a
// loaded cluster the dial alone can outlast a short timeout, and a step
// killed before it started would then start after its kill, unkilled.
// A stream that begins otherwise (the wrapper failed before it) is passed
// on whole, and counts as started.
type StartedWriter struct {
	Out      io.Writer
	Sentinel []byte

	once    sync.Once
	started chan struct{}
	mu      sync.Mutex
	head    []byte
	done    bool
}

// NewStartedWriter returns a StartedWriter for sentinel to out.
func NewStartedWriter(out io.Writer, sentinel string) *StartedWriter {
	return &StartedWriter{Out: out, Sentinel: []byte(sentinel), started: make(chan struct{})}
}

// Started is closed once the stream began.
func (w *StartedWriter) Started() <-chan struct{} { return w.started }

// Write implements io.Writer.
func (w *StartedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	if w.done {
		w.mu.Unlock()
		return w.Out.Write(p)
	}
	n := len(p)
	w.head = append(w.head, p...)
	if len(w.head) < len(w.Sentinel) && bytes.HasPrefix(w.Sentinel, w.head) {
		w.mu.Unlock()
		return n, nil // the sentinel, in pieces so far
	}
	rest := w.head
	if bytes.HasPrefix(rest, w.Sentinel) {
		rest = rest[len(w.Sentinel):]
	}
	w.head, w.done = nil, true
	w.mu.Unlock()
	w.once.Do(func() { close(w.started) })
	if len(rest) > 0 {
		if _, err := w.Out.Write(rest); err != nil {
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
		_, err := w.Out.Write(rest)
		return err
	}
	return nil
}
