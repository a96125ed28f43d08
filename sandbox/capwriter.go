package sandbox

import "sync"

// CapWriter keeps the first Limit bytes written and counts the rest, like
// the session's own cap: the exec-mode output of every container backend.
// It is safe for the copying goroutine and the timeout path to use at
// once; once frozen it ignores further output.
type CapWriter struct {
	// Limit is the number of bytes kept.
	Limit  int
	mu     sync.Mutex
	buf    []byte
	total  int64
	frozen bool
}

// Write keeps what fits under Limit and counts everything.
func (c *CapWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.frozen {
		return len(p), nil
	}
	c.total += int64(len(p))
	if room := c.Limit - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// Freeze stops accepting output: a timed-out step reports what it printed
// before its deadline.
func (c *CapWriter) Freeze() {
	c.mu.Lock()
	c.frozen = true
	c.mu.Unlock()
}

// Result returns r with the kept output, the byte count and whether the
// output was truncated.
func (c *CapWriter) Result(r ExecResult) ExecResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	r.Output = append([]byte(nil), c.buf...)
	r.OutputBytes = c.total
	r.Truncated = c.total > int64(len(c.buf))
	return r
}
