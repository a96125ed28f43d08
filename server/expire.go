package server

import (
	"context"
	"time"
)

// expireLoop removes idle episodes' sandboxes after the TTL, ends idle
// episodes past their episode_timeout (truncated), and forgets finished
// episodes (the journal keeps them) after as long again. It looks at least
// every second, so an idle episode outlives its deadline by at most that.
func (s *Server) expireLoop() {
	defer s.wg.Done()
	tick := time.NewTicker(min(max(s.cfg.ttl/4, 50*time.Millisecond), time.Second))
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-tick.C:
			s.expire(time.Now())
		}
	}
}

func (s *Server) expire(t time.Time) {
	s.mu.Lock()
	eps := make([]*episode, 0, len(s.eps))
	for _, ep := range s.eps {
		eps = append(eps, ep)
	}
	s.mu.Unlock()
	for _, ep := range eps {
		if !ep.mu.TryLock() { // busy in a call: not idle
			continue
		}
		switch {
		case ep.rec.State == StateOpen && !t.Before(ep.deadline):
			s.truncate(context.Background(), ep)
		case ep.rec.State == StateOpen && t.Sub(ep.used) > s.cfg.ttl:
			if err := s.finish(context.Background(), ep, StateExpired, nil); err != nil {
				s.cfg.log.Warn("serve: journal expired episode", "episode", ep.rec.ID, "err", err)
			}
			s.met.expired.Inc()
		case ep.rec.State != StateOpen && t.Sub(ep.rec.Updated) > s.cfg.ttl:
			s.mu.Lock()
			delete(s.eps, ep.rec.ID)
			s.mu.Unlock()
		}
		ep.mu.Unlock()
	}
}
