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

// reserve claims n of the --max-episodes slots for a reset or fork in
// flight, counting the episodes that hold a sandbox and the other claims
// in flight. admit turns a claim into an open episode; the caller gives
// back the claims it did not admit with unreserve.
func (s *Server) reserve(n int) *APIError {
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
		return e
	}
	s.pending += n
	return nil
}

// unreserve gives back n claims that were not admitted.
func (s *Server) unreserve(n int) {
	if n <= 0 {
		return
	}
	s.mu.Lock()
	s.pending -= n
	s.mu.Unlock()
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

// withinDeadline returns st with its timeout shortened to the time the
// episode has left, and whether it was: a command may not outlive the
// episode. Actions without a timeout (file edits) are left as they are.
func withinDeadline(ep *episode, st trajectory.Step) (trajectory.Step, bool) {
	if st.Action != trajectory.KindShell && st.Action != trajectory.KindHTTP {
		return st, false
	}
	left := time.Until(ep.deadline)
	limit := ep.run.StepLimit()
	if d := st.Timeout.D(); d > 0 && d < limit {
		limit = d
	}
	if left >= limit {
		return st, false
	}
	st.Timeout = task.Duration(max(left, time.Millisecond))
	return st, true
}
