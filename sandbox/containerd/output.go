package containerd

import (
	"bytes"
	"sync"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// capWriter keeps the first limit bytes written and counts the rest, like
// the session's own cap. It is safe for the copying goroutine and the
// timeout path to use at once; once frozen it ignores further output.
type capWriter struct {
	mu     sync.Mutex
	limit  int
	buf    []byte
	total  int64
	frozen bool
}

func (c *capWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.frozen {
		return len(p), nil
	}
	c.total += int64(len(p))
	if room := c.limit - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// freeze stops accepting output: a timed-out step reports what it printed
// before its deadline.
func (c *capWriter) freeze() {
	c.mu.Lock()
	c.frozen = true
	c.mu.Unlock()
}

func (c *capWriter) result(r sandbox.ExecResult) sandbox.ExecResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	r.Output = append([]byte(nil), c.buf...)
	r.OutputBytes = c.total
	r.Truncated = c.total > int64(len(c.buf))
	return r
}

// lockedBuffer is a bytes.Buffer the copying goroutine and the reader may
// use at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// Bytes returns a copy of what was written so far.
func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte{}, b.buf.Bytes()...)
}
