package docker

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/rbx-sandbox/rbx/recycle/agent"
)

// errMuxGone is a channel's error once the mux's stream ended (the
// container stopped, or its PID 1 stopped serving).
var errMuxGone = errors.New("agent mux: stream ended")

// maxMuxBuffered bounds a channel's output not yet read (a session shell's
// background output between steps): past it the channel fails.
const maxMuxBuffered = 16 << 20

// agentMux is the host's end of the mux (see agent.MuxOpen) with a
// recyclable sandbox's PID 1, over the container's attached stdin and
// stdout: a command run through it (an exec-mode step, a recycle, the next
// session shell) costs no exec, which is most of an episode's CPU on a
// busy machine (docs/recycling.md).
type agentMux struct {
	hj types.HijackedResponse

	wmu sync.Mutex // frames written whole

	mu     sync.Mutex
	next   uint32
	chans  map[uint32]*muxChan
	err    error // set once the stream ended
	stderr bytes.Buffer
}

// newAgentMux starts reading the attached stream hj of a container whose
// PID 1 runs "rbx-agent init -mux".
func newAgentMux(hj types.HijackedResponse) *agentMux {
	m := &agentMux{hj: hj, chans: map[uint32]*muxChan{}}
	go m.read()
	return m
}

func (m *agentMux) read() {
	pr, pw := io.Pipe()
	go func() {
		_, err := stdcopy.StdCopy(pw, stderrTail{m}, m.hj.Reader)
		if err == nil {
			err = io.EOF
		}
		pw.CloseWithError(err)
	}()
	for {
		f, err := agent.ReadMux(pr)
		if err != nil {
			m.fail(err)
			pr.CloseWithError(err)
			return
		}
		m.mu.Lock()
		c := m.chans[f.Chan]
		m.mu.Unlock()
		if c != nil {
			c.deliver(f)
		}
	}
}

// stderrTail keeps the first KiBs PID 1 writes on stderr, for errors.
type stderrTail struct{ m *agentMux }

func (t stderrTail) Write(p []byte) (int, error) {
	t.m.mu.Lock()
	defer t.m.mu.Unlock()
	if room := 4096 - t.m.stderr.Len(); room > 0 {
		t.m.stderr.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// fail ends every channel: the stream is gone.
func (m *agentMux) fail(err error) {
	m.mu.Lock()
	if m.err == nil {
		m.err = fmt.Errorf("%w: %v", errMuxGone, err)
		if s := bytes.TrimSpace(m.stderr.Bytes()); len(s) > 0 {
			m.err = fmt.Errorf("%w (PID 1: %s)", m.err, s)
		}
	}
	chans := m.chans
	m.chans = map[uint32]*muxChan{}
	err = m.err
	m.mu.Unlock()
	for _, c := range chans {
		c.fail(err)
	}
}

// alive reports whether the mux still serves (nil mux: never did).
func (m *agentMux) alive() bool {
	if m == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err == nil
}

// close hangs up: PID 1 stops serving, channels fail.
func (m *agentMux) close() {
	if m != nil {
		m.hj.Close()
	}
}

func (m *agentMux) send(f agent.MuxFrame) error {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if err := agent.WriteMux(m.hj.Conn, f); err != nil {
		return fmt.Errorf("agent mux: %w", err)
	}
	return nil
}

// open opens a channel running req.
func (m *agentMux) open(req agent.OpenRequest) (*muxChan, error) {
	m.mu.Lock()
	if m.err != nil {
		err := m.err
		m.mu.Unlock()
		return nil, err
	}
	m.next++
	c := &muxChan{m: m, id: m.next, exited: make(chan struct{})}
	c.cond = sync.NewCond(&c.mu)
	m.chans[c.id] = c
	m.mu.Unlock()
	f, err := agent.JSONFrame(c.id, agent.MuxOpen, req)
	if err == nil {
		err = m.send(f)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}
