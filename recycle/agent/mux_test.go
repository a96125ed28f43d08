package agent_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/recycle/agent"
	"github.com/rbx-sandbox/rbx/recycle/agenttest"
)

// muxPeer runs "rbx-agent init -mux" as an ordinary process (never PID 1
// here, and never a recycle or scan: their kill(-1) would reach the host).
type muxPeer struct {
	in  io.WriteCloser
	out io.Reader
}

func startMux(t *testing.T) *muxPeer {
	t.Helper()
	cmd := exec.Command(agenttest.Build(t), "init", "-mux")
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	require.NoError(t, cmd.Start())
	return &muxPeer{in: in, out: out}
}

func (p *muxPeer) send(t *testing.T, f agent.MuxFrame) {
	t.Helper()
	require.NoError(t, agent.WriteMux(p.in, f))
}

func (p *muxPeer) spawn(t *testing.T, ch uint32, argv ...string) {
	t.Helper()
	sp := agent.SessionSpec{Path: argv[0], Argv: argv, Env: [][]byte{[]byte("PATH=/usr/bin:/bin")},
		Dir: []byte("/"), UID: os.Getuid(), GID: os.Getgid(), Groups: []int{}}
	f, err := agent.JSONFrame(ch, agent.MuxOpen, agent.OpenRequest{Op: "spawn", Spawn: &sp})
	require.NoError(t, err)
	p.send(t, f)
}

// collect reads frames until every channel in want ended: each one's
// output and status.
func (p *muxPeer) collect(t *testing.T, chans ...uint32) (map[uint32]string, map[uint32]agent.ExitStatus) {
	t.Helper()
	outs, sts := map[uint32]string{}, map[uint32]agent.ExitStatus{}
	done := make(chan error, 1)
	go func() {
		for len(sts) < len(chans) {
			f, err := agent.ReadMux(p.out)
			if err != nil {
				done <- err
				return
			}
			switch f.Kind {
			case agent.MuxData:
				outs[f.Chan] += string(f.Data)
			case agent.MuxExit:
				var st agent.ExitStatus
				if err := json.Unmarshal(f.Data, &st); err != nil {
					done <- err
					return
				}
				sts[f.Chan] = st
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(20 * time.Second):
		t.Fatalf("channels did not end")
	}
	return outs, sts
}

func TestMuxSpawn(t *testing.T) {
	p := startMux(t)
	p.spawn(t, 1, "/bin/sh", "-c", "echo out; echo err >&2; exit 3")
	p.spawn(t, 2, "/bin/cat")
	p.send(t, agent.MuxFrame{Chan: 2, Kind: agent.MuxData, Data: []byte("typed in\n")})
	p.send(t, agent.MuxFrame{Chan: 2, Kind: agent.MuxEOF})
	p.spawn(t, 3, "/bin/sleep", "30")
	p.send(t, agent.MuxFrame{Chan: 3, Kind: agent.MuxSignal, Data: []byte{9}})
	// A spawned process starts with no signal ignored (PID 1 catches, not
	// ignores, the signals a policy might send it).
	p.spawn(t, 4, "/bin/sh", "-c", "grep SigIgn /proc/self/status")
	f, err := agent.JSONFrame(5, agent.MuxOpen, agent.OpenRequest{Op: "format-disk"})
	require.NoError(t, err)
	p.send(t, f)
	p.spawn(t, 6, "/nonexistent/shell")
	outs, sts := p.collect(t, 1, 2, 3, 4, 5, 6)

	tests := []struct {
		ch      uint32
		out     string
		code    int
		errLike string
	}{
		{ch: 1, out: "out\nerr\n", code: 3},
		{ch: 2, out: "typed in\n", code: 0},
		{ch: 3, out: "", code: 137},
		{ch: 4, out: outs[4], code: 0}, // checked below
		{ch: 5, code: 1, errLike: `unknown op "format-disk"`},
		{ch: 6, code: 1, errLike: "spawn /nonexistent/shell"},
	}
	// What PID 1 catches must not reach the child as ignored (what the test
	// process itself inherited ignored, the child inherits too: a container's
	// PID 1 starts with none).
	ign, err := strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(outs[4], "SigIgn:")), 16, 64)
	require.NoError(t, err, "SigIgn line %q", outs[4])
	var caught uint64
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGPIPE,
		syscall.SIGALRM, syscall.SIGVTALRM, syscall.SIGPROF, syscall.SIGXCPU, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU} {
		caught |= 1 << (uint(sig) - 1)
	}
	assert.Zero(t, ign&caught, "signals PID 1 catches are ignored in its child: SigIgn %x", ign)
	for _, tt := range tests {
		assert.Equal(t, tt.out, outs[tt.ch], "channel %d output", tt.ch)
		assert.Equal(t, tt.code, sts[tt.ch].Code, "channel %d code", tt.ch)
		if tt.errLike != "" {
			assert.Contains(t, sts[tt.ch].Err, tt.errLike, "channel %d", tt.ch)
		} else {
			assert.Empty(t, sts[tt.ch].Err, "channel %d", tt.ch)
		}
	}
}

// TestMuxRefusesSession: a recycle through the mux never execs PID 1 into
// a shell (-session); the refusal comes before any kill.
func TestMuxRefusesSession(t *testing.T) {
	p := startMux(t)
	f, err := agent.JSONFrame(7, agent.MuxOpen, agent.OpenRequest{Op: "recycle", Args: []string{"-session"}})
	require.NoError(t, err)
	p.send(t, f)
	_, sts := p.collect(t, 7)
	assert.Contains(t, sts[7].Err, "-session")
}

func TestMuxFrameRoundTrip(t *testing.T) {
	tests := []agent.MuxFrame{
		{Chan: 1, Kind: agent.MuxData, Data: []byte("x")},
		{Chan: 1<<32 - 1, Kind: agent.MuxEOF, Data: []byte{}},
		{Chan: 9, Kind: agent.MuxData, Data: bytes.Repeat([]byte{0xff}, agent.MaxMuxData)},
	}
	var buf bytes.Buffer
	for _, f := range tests {
		require.NoError(t, agent.WriteMux(&buf, f))
	}
	for _, want := range tests {
		got, err := agent.ReadMux(&buf)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	require.Error(t, agent.WriteMux(&buf, agent.MuxFrame{Kind: agent.MuxData, Data: make([]byte, agent.MaxMuxData+1)}))
	_, err := agent.ReadMux(bytes.NewReader([]byte{1, 0, 0, 0, 'z', 0, 0, 0, 0}))
	require.ErrorContains(t, err, "unknown kind")
}

func FuzzReadMux(f *testing.F) {
	var buf bytes.Buffer
	_ = agent.WriteMux(&buf, agent.MuxFrame{Chan: 3, Kind: agent.MuxOpen, Data: []byte(`{"op":"spawn"}`)})
	f.Add(buf.Bytes())
	f.Add([]byte{0, 0, 0, 0, 'd', 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, err := agent.ReadMux(bytes.NewReader(data))
		if err != nil {
			return
		}
		var again bytes.Buffer
		require.NoError(t, agent.WriteMux(&again, fr))
		assert.Equal(t, data[:again.Len()], again.Bytes())
	})
}
