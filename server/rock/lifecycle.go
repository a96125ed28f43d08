package rock

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// routes registers the endpoints ROLL's sandbox manager and the ROCK SDK
// call. Unknown paths get ROCK's Failed envelope too.
func (h *Handler) routes() {
	h.mux = http.NewServeMux()
	for _, rt := range []struct {
		method, path string
		f            func(*http.Request) (any, *failure)
	}{
		{"POST", "/start_async", h.startAsync},
		{"POST", "/start", h.startAsync}, // the SDK's start() polls get_status either way
		{"GET", "/get_status", h.getStatus},
		{"GET", "/is_alive", h.isAlive},
		{"POST", "/create_session", h.createSession},
		{"POST", "/run_in_session", h.runInSession},
		{"POST", "/close_session", h.closeSession},
		{"POST", "/execute", h.execute},
		{"POST", "/write_file", h.writeFile},
		{"POST", "/read_file", h.readFile},
		{"POST", "/upload", h.upload},
		{"GET", "/get_token", h.getToken},
		{"POST", "/stop", h.stopBox},
		{"GET", "/rbx/prefix", h.prefix},
	} {
		f, name := rt.f, rt.path[1:]
		h.mux.HandleFunc(rt.method+" "+Prefix+rt.path, func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			v, fail := f(r)
			if fail != nil {
				h.met.observe(name, statusFailed, time.Since(start))
				writeFailure(w, fail)
				return
			}
			h.met.observe(name, statusSuccess, time.Since(start))
			writeOK(w, v)
		})
	}
	h.mux.HandleFunc(Prefix+"/", func(w http.ResponseWriter, r *http.Request) {
		writeFailure(w, failed("", fmt.Sprintf("no endpoint %s %s", r.Method, r.URL.Path)))
	})
}

// janitor ends sandboxes idle past their timeout and notices those the
// backend ended; it closes idle sessions, keeps the backend from expiring
// sandboxes that are within the API's timeout, and forgets stopped
// sandboxes after a while.
func (h *Handler) janitor() {
	defer h.wg.Done()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-h.stop:
			return
		case t := <-tick.C:
			h.sweep(t)
		}
	}
}

func (h *Handler) sweep(t time.Time) {
	h.mu.Lock()
	boxes := make([]*box, 0, len(h.boxes))
	for _, b := range h.boxes {
		boxes = append(boxes, b)
	}
	h.mu.Unlock()
	for _, b := range boxes {
		b.mu.Lock()
		state, lease, idle, stopping := b.state, b.lease, t.Sub(b.used), b.stopping
		done := state == stateStopped || b.startErr != nil
		var stale []*bashSession
		for name, s := range b.sessions {
			if s == nil { // still starting (create_session reserved the name)
				continue
			}
			if s.idle(t) > h.cfg.sessionIdle && s.mu.TryLock() {
				s.mu.Unlock()
				stale = append(stale, s)
				delete(b.sessions, name)
			}
		}
		b.mu.Unlock()
		for _, s := range stale {
			h.cfg.log.Info("rock: idle session closed", "sandbox", b.id, "session", s.name)
			go s.close(context.Background(), lease.Sandbox())
		}
		switch {
		case stopping:
		case done && t.Sub(b.stopped) > h.cfg.keepStopped: // stopped, or its start failed
			h.mu.Lock()
			delete(h.boxes, b.id)
			h.mu.Unlock()
		case state != stateRunning:
		case lease.Gone() != nil:
			h.end(context.Background(), b, CloseDiscard, lease.Gone().Error())
		case idle > b.ttl:
			h.cfg.log.Info("rock: sandbox expired", "sandbox", b.id, "idle", idle.Round(time.Second))
			go h.end(context.Background(), b, CloseExpired, "auto clear: idle for "+idle.Round(time.Second).String())
		default:
			lease.KeepAlive()
		}
	}
}

// end stops a box: its sessions are hung up and its lease closed (the
// sandbox removed; an episode verified when how is CloseVerify). It
// returns the lease's outcome; ending a box that is being ended waits
// for that, and ending a stopped box does nothing.
func (h *Handler) end(ctx context.Context, b *box, how CloseMode, why string) (map[string]string, error) {
	b.mu.Lock()
	if b.stopping || b.state == stateStopped {
		b.mu.Unlock()
		<-b.ended
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.outcome, nil
	}
	b.stopping = true
	lease, wasRunning := b.lease, b.state == stateRunning
	b.mu.Unlock()
	b.hangUpSessions()
	var out map[string]string
	var err error
	if lease != nil {
		out, err = lease.Close(context.WithoutCancel(ctx), how)
	}
	b.mu.Lock()
	b.stopping, b.outcome = false, out
	b.setState(stateStopped, why)
	b.mu.Unlock()
	close(b.ended)
	if wasRunning {
		h.met.running.Dec()
	}
	if err != nil {
		h.cfg.log.Warn("rock: stop sandbox", "sandbox", b.id, "err", err)
		return out, fmt.Errorf("stop sandbox %s: %w", b.id, err)
	}
	return out, nil
}
