package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// outputGrace is how long a spawned process's output may go on after it
// exited (a background child holding the pipe): an exec's stream, too,
// ends with its process.
const outputGrace = 100 * time.Millisecond

// muxServer serves the host's channels (see MuxOpen) in PID 1.
type muxServer struct {
	rp *reaper

	wmu sync.Mutex
	out io.Writer

	mu    sync.Mutex
	chans map[uint32]*serverChan
}

// serverChan is an open channel: its input and, for a spawned process,
// its pid.
type serverChan struct {
	in  *queue
	pid int
}

// serveMux reads the host's frames from in until it ends or breaks.
func serveMux(rp *reaper, in io.Reader, out io.Writer) error {
	s := &muxServer{rp: rp, out: out, chans: map[uint32]*serverChan{}}
	for {
		f, err := ReadMux(in)
		if err != nil {
			return err
		}
		s.mu.Lock()
		c := s.chans[f.Chan]
		s.mu.Unlock()
		switch {
		case f.Kind == MuxOpen && c == nil:
			s.open(f)
		case c == nil: // the channel ended meanwhile
		case f.Kind == MuxData:
			c.in.push(f.Data)
		case f.Kind == MuxEOF:
			c.in.close()
		case f.Kind == MuxSignal && len(f.Data) == 1 && c.pid > 0:
			s.rp.signal(c.pid, unix.Signal(f.Data[0]))
		}
	}
}

// send writes one frame; frames of concurrent channels do not interleave.
func (s *muxServer) send(f MuxFrame) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_ = WriteMux(s.out, f)
}

// end sends the channel's exit status and forgets it.
func (s *muxServer) end(ch uint32, st ExitStatus) {
	if f, err := JSONFrame(ch, MuxExit, st); err == nil {
		s.send(f)
	}
	s.mu.Lock()
	delete(s.chans, ch)
	s.mu.Unlock()
}

func (s *muxServer) open(f MuxFrame) {
	var req OpenRequest
	c := &serverChan{in: newQueue()}
	s.mu.Lock()
	s.chans[f.Chan] = c
	s.mu.Unlock()
	if err := json.Unmarshal(f.Data, &req); err != nil {
		s.end(f.Chan, ExitStatus{Code: 1, Err: fmt.Sprintf("open: %v", err)})
		return
	}
	w := &chanWriter{s: s, ch: f.Chan}
	switch req.Op {
	case "spawn":
		if req.Spawn == nil {
			s.end(f.Chan, ExitStatus{Code: 1, Err: "spawn: no spec"})
			return
		}
		s.spawn(f.Chan, c, *req.Spawn, w)
	case "whois":
		go func() {
			st := ExitStatus{}
			sp, err := Whois()
			if err == nil {
				err = json.NewEncoder(w).Encode(sp)
			}
			if err != nil {
				st = ExitStatus{Code: 1, Err: fmt.Sprintf("rbx-agent whois: %v", err)}
			}
			s.end(f.Chan, st)
		}()
	case "recycle", "scan":
		if slices.Contains(req.Args, "-session") {
			s.end(f.Chan, ExitStatus{Code: 1, Err: "recycle -session: PID 1 spawns the session shell instead"})
			return
		}
		run := scan
		if req.Op == "recycle" {
			run = recycleCmd
		}
		go func() {
			st := ExitStatus{}
			if err := run(req.Args, c.in, w); err != nil {
				st = ExitStatus{Code: 1, Err: fmt.Sprintf("rbx-agent %s: %v", req.Op, err)}
			}
			s.end(f.Chan, st)
		}()
	default:
		s.end(f.Chan, ExitStatus{Code: 1, Err: fmt.Sprintf("open: unknown op %q", req.Op)})
	}
}

// spawn starts sp as a child in its own process group, its stdin fed by
// the channel and its stdout and stderr, merged, sent on it.
func (s *muxServer) spawn(ch uint32, c *serverChan, sp SessionSpec, w io.Writer) {
	env := make([]string, len(sp.Env))
	for i, e := range sp.Env {
		if bytes.IndexByte(e, 0) >= 0 {
			s.end(ch, ExitStatus{Code: 1, Err: "spawn: NUL in the environment"})
			return
		}
		env[i] = string(e)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		s.end(ch, ExitStatus{Code: 1, Err: fmt.Sprintf("spawn: %v", err)})
		return
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		s.end(ch, ExitStatus{Code: 1, Err: fmt.Sprintf("spawn: %v", err)})
		return
	}
	groups := make([]uint32, len(sp.Groups))
	for i, g := range sp.Groups {
		groups[i] = uint32(g)
	}
	pid, wait, err := s.rp.start(sp.Path, sp.Argv, &os.ProcAttr{
		Dir: string(sp.Dir), Env: env, Files: []*os.File{inR, outW, outW},
		Sys: &syscall.SysProcAttr{Setpgid: true, Credential: &syscall.Credential{
			Uid: uint32(sp.UID), Gid: uint32(sp.GID), Groups: groups}},
	})
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		s.end(ch, ExitStatus{Code: 1, Err: fmt.Sprintf("spawn %s: %v", sp.Path, err)})
		return
	}
	s.mu.Lock()
	c.pid = pid
	s.mu.Unlock()
	go func() {
		_, _ = io.Copy(inW, c.in)
		inW.Close()
	}()
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(w, outR)
	}()
	go func() {
		ws := <-wait
		select {
		case <-copied:
		case <-time.After(outputGrace):
			outR.Close()
			<-copied
		}
		outR.Close()
		c.in.close()
		s.end(ch, ExitStatus{Code: exitCode(ws)})
	}()
}

// chanWriter sends what is written as the channel's output.
type chanWriter struct {
	s  *muxServer
	ch uint32
}

func (w *chanWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		k := min(len(p), MaxMuxData)
		w.s.send(MuxFrame{Chan: w.ch, Kind: MuxData, Data: slices.Clone(p[:k])})
		p, n = p[k:], n+k
	}
	return n, nil
}

// queue is a channel's input: pushes never block the frame reader, reads
// block until data or the end.
type queue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	bufs   [][]byte
	closed bool
}

func newQueue() *queue {
	q := &queue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *queue) push(p []byte) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.bufs = append(q.bufs, p)
		q.cond.Broadcast()
	}
}

func (q *queue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.cond.Broadcast()
}

func (q *queue) Read(p []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.bufs) == 0 {
		if q.closed {
			return 0, io.EOF
		}
		q.cond.Wait()
	}
	n := copy(p, q.bufs[0])
	if n == len(q.bufs[0]) {
		q.bufs = q.bufs[1:]
	} else {
		q.bufs[0] = q.bufs[0][n:]
	}
	return n, nil
}
