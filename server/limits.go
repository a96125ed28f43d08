package server

import (
	"context"
	"net/http"
	"time"

	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// retryAfter is the Retry-After of too_many_episodes, in seconds: slots
// free up as soon as a trainer evaluates or closes an episode.
const retryAfter = 1

// slots is a claim on some of the --max-episodes slots, taken by reserve
// for a reset, fork, evidence call or rebuild in flight. Each slot is
// given up exactly once: admit turns one into an open episode, release
// gives back whatever is left — and may be called any number of times
// (deferred right after reserve), so no path gives a slot back twice or
// forgets one.
type slots struct {
	s    *Server
	left int // guarded by s.mu
}

// reserve claims n of the --max-episodes slots, counting the episodes
// that hold a sandbox and the other claims in flight.
func (s *Server) reserve(n int) (*slots, *APIError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	open := s.pending
	for _, ep := range s.eps {
		if ep.holds.Load() {
			open++
		}
	}
	if open+n > s.cfg.maxOpen {
		e := apiErr(http.StatusTooManyRequests, CodeTooManyEpisodes,
			"%d episode(s) open or starting and %d asked for: the server's limit is %d (--max-episodes); evaluate or close episodes, then retry",
			open, n, s.cfg.maxOpen).With("open", open).With("max", s.cfg.maxOpen).With("retry_after", retryAfter)
		e.RetryAfter = retryAfter
		return nil, e
	}
	s.pending += n
	return &slots{s: s, left: n}, nil
}

// release gives back the slots not admitted; nil-safe and idempotent.
func (c *slots) release() {
	if c == nil {
		return
	}
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.s.pending -= c.left
	c.left = 0
}

// takeLocked turns one slot into an open episode, false when none is
// left. Callers hold s.mu.
func (c *slots) takeLocked() bool {
	if c == nil || c.left == 0 {
		return false
	}
	c.left--
	c.s.pending--
	return true
}

// overdue ends an open episode past its deadline as truncated and says so;
// nil when the episode may go on. Callers hold ep.mu.
func (s *Server) overdue(ctx context.Context, ep *episode) *APIError {
	if ep.rec.State == StateOpen && !now().Before(ep.deadline) {
		s.truncate(ctx, ep)
	}
	return s.stillOpen(ep)
}

// truncate ends an episode that ran past its episode_timeout: its sandbox
// is released and no outcome reaches the curriculum (the verifier never
// ran). Callers hold ep.mu.
func (s *Server) truncate(ctx context.Context, ep *episode) {
	if err := s.finish(ctx, ep, StateTruncated, nil); err != nil {
		s.cfg.log.Warn("serve: journal truncated episode", "episode", ep.rec.ID, "err", err)
	}
	s.met.truncated.Inc()
}

// timeoutOf is how long action st may run in ep: what it asks, at most
// the task's step limit.
func timeoutOf(ep *episode, st trajectory.Step) time.Duration {
	limit := ep.run.StepLimit()
	if d := st.Timeout.D(); d > 0 && d < limit {
		limit = d
	}
	return limit
}

// withinDeadline returns st with its timeout shortened to the time the
// episode has left, and whether it was: a command may not outlive the
// episode. Actions without a timeout (file edits) are left as they are.
func withinDeadline(ep *episode, st trajectory.Step) (trajectory.Step, bool) {
	if st.Action != trajectory.KindShell && st.Action != trajectory.KindHTTP {
		return st, false
	}
	left := time.Until(ep.deadline)
	limit := timeoutOf(ep, st)
	if left >= limit {
		return st, false
	}
	st.Timeout = task.Duration(max(left, time.Millisecond))
	return st, true
}
