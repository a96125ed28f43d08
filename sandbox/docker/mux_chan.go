package docker

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/rbx-sandbox/rbx/recycle/agent"
)

// muxChan is one channel of the agent mux: a process PID 1 spawned or a
// command it runs. Reads return its output, then io.EOF once it exited;
// writes are its input.
type muxChan struct {
	m  *agentMux
	id uint32

	mu     sync.Mutex
	cond   *sync.Cond
	buf    []byte
	st     agent.ExitStatus
	err    error         // the channel failed (stream gone, output overflow)
	exited chan struct{} // closed once st or err is set
	done   bool
}

// deliver takes one frame from PID 1.
func (c *muxChan) deliver(f agent.MuxFrame) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return
	}
	switch f.Kind {
	case agent.MuxData:
		if len(c.buf)+len(f.Data) > maxMuxBuffered {
			c.endLocked(agent.ExitStatus{}, fmt.Errorf("agent mux: channel %d: more than %d bytes of output unread", c.id, maxMuxBuffered))
			return
		}
		c.buf = append(c.buf, f.Data...)
	case agent.MuxExit:
		var st agent.ExitStatus
		if err := json.Unmarshal(f.Data, &st); err != nil {
			c.endLocked(st, fmt.Errorf("agent mux: exit status: %w", err))
			return
		}
		c.endLocked(st, nil)
	}
	c.cond.Broadcast()
}

func (c *muxChan) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.done {
		c.endLocked(agent.ExitStatus{}, err)
	}
}

func (c *muxChan) endLocked(st agent.ExitStatus, err error) {
	c.st, c.err, c.done = st, err, true
	close(c.exited)
	c.cond.Broadcast()
	if err != nil || c.m == nil {
		return
	}
	go c.forget()
}

// forget drops the channel from the mux once it ended.
func (c *muxChan) forget() {
	c.m.mu.Lock()
	delete(c.m.chans, c.id)
	c.m.mu.Unlock()
}

// Read returns the channel's output; io.EOF once it exited and all was
// read; the channel's error if it failed.
func (c *muxChan) Read(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.buf) == 0 && !c.done {
		c.cond.Wait()
	}
	if len(c.buf) > 0 {
		n := copy(p, c.buf)
		c.buf = c.buf[n:]
		return n, nil
	}
	if c.err != nil {
		return 0, c.err
	}
	return 0, io.EOF
}

// Write sends p as the channel's input.
func (c *muxChan) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		k := min(len(p), agent.MaxMuxData)
		if err := c.m.send(agent.MuxFrame{Chan: c.id, Kind: agent.MuxData, Data: p[:k]}); err != nil {
			return n, err
		}
		p, n = p[k:], n+k
	}
	return n, nil
}

// CloseWrite closes the channel's input.
func (c *muxChan) CloseWrite() error {
	return c.m.send(agent.MuxFrame{Chan: c.id, Kind: agent.MuxEOF})
}

// Signal sends sig to the spawned process's group.
func (c *muxChan) Signal(sig byte) error {
	return c.m.send(agent.MuxFrame{Chan: c.id, Kind: agent.MuxSignal, Data: []byte{sig}})
}

// Wait returns the channel's exit status once it ended.
func (c *muxChan) Wait(ctx context.Context) (agent.ExitStatus, error) {
	select {
	case <-c.exited:
	case <-ctx.Done():
		return agent.ExitStatus{}, fmt.Errorf("agent mux: %w", ctx.Err())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st, c.err
}

// Exited reports the exit code once the channel ended cleanly.
func (c *muxChan) Exited() (int, bool) {
	select {
	case <-c.exited:
	default:
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st.Code, c.err == nil && c.st.Err == ""
}

// Close abandons the channel: its reads end, later frames are dropped.
// A process still running is not killed (that is the caller's kill).
func (c *muxChan) Close() {
	c.fail(io.ErrClosedPipe)
	c.m.mu.Lock()
	delete(c.m.chans, c.id)
	c.m.mu.Unlock()
}
