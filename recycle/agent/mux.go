package agent

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// The mux is how the host talks with the agent that is the sandbox's PID 1
// (init -mux), over the container's own stdin and stdout: no exec is
// created per command. Each frame belongs to a channel, opened by the
// host; a channel is a process the agent spawned (an exec-mode step, a
// session shell) or a command it runs in its own process (recycle, scan:
// PID 1 is the one process their kill(-1) spares, so nothing else of the
// sandbox survives them).
const (
	// MuxOpen (host → agent) opens the frame's channel: an OpenRequest.
	MuxOpen byte = 'o'
	// MuxData carries bytes: to the channel's input (host → agent) or
	// from its output (agent → host).
	MuxData byte = 'd'
	// MuxEOF (host → agent) closes the channel's input.
	MuxEOF byte = 'e'
	// MuxSignal (host → agent) sends the signal numbered by its one byte
	// to the channel's process group.
	MuxSignal byte = 's'
	// MuxExit (agent → host) ends the channel: an ExitStatus, after the
	// last of its output.
	MuxExit byte = 'x'
)

// MaxMuxData bounds one frame's payload.
const MaxMuxData = 1 << 20

// muxHeader is a frame's channel (4 bytes), kind (1) and payload length (4).
const muxHeader = 9

// MuxFrame is one frame of the mux.
type MuxFrame struct {
	Chan uint32
	Kind byte
	Data []byte
}

// OpenRequest is what a channel runs.
type OpenRequest struct {
	// Op is "spawn" (start Spawn as a child process), or "recycle",
	// "scan" or "whois" (the agent's commands, in its own process, with
	// Args).
	Op    string       `json:"op"`
	Args  []string     `json:"args,omitempty"`
	Spawn *SessionSpec `json:"spawn,omitempty"`
}

// ExitStatus ends a channel: the process's exit code (128+N for a signal,
// as the engine reports an exec's), or the command's error.
type ExitStatus struct {
	Code int    `json:"code"`
	Err  string `json:"err,omitempty"`
}

// WriteMux writes one frame; payloads over MaxMuxData are refused.
func WriteMux(w io.Writer, f MuxFrame) error {
	if len(f.Data) > MaxMuxData {
		return fmt.Errorf("mux frame: %d bytes, more than %d", len(f.Data), MaxMuxData)
	}
	buf := make([]byte, muxHeader+len(f.Data))
	binary.LittleEndian.PutUint32(buf, f.Chan)
	buf[4] = f.Kind
	binary.LittleEndian.PutUint32(buf[5:], uint32(len(f.Data)))
	copy(buf[muxHeader:], f.Data)
	_, err := w.Write(buf)
	return err
}

// ReadMux reads one frame.
func ReadMux(r io.Reader) (MuxFrame, error) {
	var h [muxHeader]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return MuxFrame{}, err
	}
	f := MuxFrame{Chan: binary.LittleEndian.Uint32(h[:]), Kind: h[4]}
	n := binary.LittleEndian.Uint32(h[5:])
	if n > MaxMuxData {
		return MuxFrame{}, fmt.Errorf("mux frame: %d bytes, more than %d", n, MaxMuxData)
	}
	switch f.Kind {
	case MuxOpen, MuxData, MuxEOF, MuxSignal, MuxExit:
	default:
		return MuxFrame{}, fmt.Errorf("mux frame: unknown kind %q", f.Kind)
	}
	f.Data = make([]byte, n)
	if _, err := io.ReadFull(r, f.Data); err != nil {
		return MuxFrame{}, fmt.Errorf("mux frame: %w", errors.Join(io.ErrUnexpectedEOF, err))
	}
	return f, nil
}

// JSONFrame is a frame whose payload is v as JSON.
func JSONFrame(ch uint32, kind byte, v any) (MuxFrame, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return MuxFrame{}, err
	}
	return MuxFrame{Chan: ch, Kind: kind, Data: data}, nil
}
