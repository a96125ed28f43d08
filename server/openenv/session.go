package openenv

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/gorilla/websocket"
)

// writeTimeout bounds one frame's write: a client that stops reading
// does not hold the session.
const writeTimeout = 10 * time.Second

// session is one /ws connection: at most one episode at a time, frames
// answered in order.
type session struct {
	h    *Handler
	conn *websocket.Conn
	ep   *Episode // the current episode; nil before the first reset
	// steps counts the current episode's steps; done is set once it ended.
	steps int
	done  bool
}

// serve answers frames until the client closes, sends close, or a fatal
// error; the current episode is closed on the way out. Frames are read
// by a goroutine of their own, so that the client's pings are answered
// while a long reset runs (its client gives up after 20 s without).
func (s *session) serve(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer s.closeEpisode()
	go func() { // the server draining ends the session
		<-ctx.Done()
		_ = s.conn.Close()
	}()
	frames := make(chan []byte)
	go func() {
		defer cancel() // the client is gone: a running reset or step stops
		defer close(frames)
		for {
			_, data, err := s.conn.ReadMessage()
			if err != nil {
				return
			}
			select {
			case frames <- data:
			case <-ctx.Done():
				return
			}
		}
	}()
	for data := range frames {
		if !s.handle(ctx, data) {
			return
		}
	}
}

// handle answers one frame; false ends the session.
func (s *session) handle(ctx context.Context, data []byte) bool {
	var f inFrame
	if err := json.Unmarshal(data, &f); err != nil {
		return s.fail(Errorf(CodeInvalidJSON, "frame: %v", err))
	}
	switch f.Type {
	case typeReset:
		return s.reset(ctx, f.Data)
	case typeStep:
		return s.step(ctx, f.Data)
	case typeState:
		return s.write(outFrame{Type: typeState, Data: s.state()})
	case typeClose:
		s.closeEpisode()
		_ = s.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(writeTimeout))
		return false
	case typeMCP:
		return s.write(outFrame{Type: typeMCP, Data: s.h.rpc(ctx, f.Data, s)})
	}
	return s.fail(Errorf(CodeUnknownType, "frame type %q: expected reset, step, state, close or mcp", f.Type))
}

// reset starts a new episode, closing the current one.
func (s *session) reset(ctx context.Context, raw json.RawMessage) bool {
	d, e := parseReset(raw)
	if e != nil {
		return s.fail(e)
	}
	s.closeEpisode()
	ep, obs, err := s.h.be.Reset(ctx, d)
	if err != nil {
		return s.fail(asError(err))
	}
	s.ep, s.steps, s.done = &ep, 0, false
	return s.write(outFrame{Type: typeObservation, Data: observation{Observation: obs}})
}

// step runs an action of the current episode.
func (s *session) step(ctx context.Context, raw json.RawMessage) bool {
	call, list, e := parseAction(raw)
	if e != nil {
		return s.fail(e)
	}
	if list {
		return s.write(outFrame{Type: typeObservation, Data: observation{Observation: map[string]any{"tools": s.h.be.Tools()}}})
	}
	res, err := s.call(ctx, call)
	if err != nil {
		return s.fail(asError(err))
	}
	return s.write(outFrame{Type: typeObservation, Data: observation{Observation: res.Observation, Reward: res.Reward, Done: res.Done}})
}

// call runs a tool call in the current episode (a step, or tools/call
// over mcp).
func (s *session) call(ctx context.Context, call ToolCall) (Result, error) {
	switch {
	case s.ep == nil:
		return Result{}, Errorf(CodeExecution, "no episode: send a reset first")
	case s.done:
		return Result{}, Errorf(CodeExecution, "episode %s has ended: send a reset", s.ep.ID)
	}
	res, err := s.h.be.Step(ctx, s.ep.ID, call)
	if err != nil {
		return Result{}, err
	}
	s.steps++
	if res.Observation == nil {
		res.Observation = map[string]any{}
	}
	res.Observation["tool_name"] = call.Name
	if _, ok := res.Observation["error"]; !ok {
		res.Observation["error"] = nil
	}
	if res.Done {
		s.done = true
	}
	return res, nil
}

// state is a state frame's data.
func (s *session) state() map[string]any {
	st := map[string]any{"episode_id": nil, "step_count": s.steps, "done": s.done}
	if s.ep != nil {
		st["episode_id"], st["task"], st["k"], st["t"] = s.ep.ID, s.ep.Task, s.ep.K, s.ep.T
	}
	return st
}

// closeEpisode ends the current episode without an outcome, if it is
// still open. Not under ctx: the client may be gone.
func (s *session) closeEpisode() {
	if s.ep == nil || s.done {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.h.be.Close(ctx, s.ep.ID); err != nil {
		s.h.log.Warn("openenv: close episode", "episode", s.ep.ID, "err", err)
	}
	s.done = true
}

// fail sends an error frame; a fatal code ends the session.
func (s *session) fail(e *Error) bool {
	if !s.write(errorFrame(e)) {
		return false
	}
	if fatal(e.Code) {
		_ = s.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.ClosePolicyViolation, e.Code), time.Now().Add(writeTimeout))
		return false
	}
	return true
}

// write sends one frame; false when the connection is gone.
func (s *session) write(f outFrame) bool {
	_ = s.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
	err := s.conn.WriteJSON(f)
	if err != nil && !errors.Is(err, websocket.ErrCloseSent) {
		s.h.log.Debug("openenv: write", "err", err)
	}
	return err == nil
}
