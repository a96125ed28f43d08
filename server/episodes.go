package server

import (
	"context"
	"net/http"
	"sort"
	"strconv"

	"github.com/rbx-sandbox/rbx/trajectory"
)

func summary(r record) EpisodeSummary {
	return EpisodeSummary{ID: r.ID, Task: r.Task, K: r.K, State: r.State, Parent: r.Parent, Steps: max(len(r.Actions), r.steps),
		Created: r.Created.UTC().Format(timeFormat), Updated: r.Updated.UTC().Format(timeFormat), Outcome: r.Outcome}
}

const timeFormat = "2006-01-02T15:04:05.000Z07:00"

func (s *Server) closeEpisode(r *http.Request) (any, *APIError) {
	id, aerr := pathID(r)
	if aerr != nil {
		return nil, aerr
	}
	return s.closeByID(r.Context(), id)
}

// closeByID releases episode id without an outcome (idempotent while it
// is in memory).
func (s *Server) closeByID(ctx context.Context, id string) (EpisodeSummary, *APIError) {
	ep, aerr := s.live(ctx, id)
	if aerr != nil {
		return EpisodeSummary{}, aerr
	}
	ep.mu.Lock()
	defer ep.mu.Unlock()
	if ep.rec.State == StateOpen {
		if err := s.finish(ctx, ep, StateClosed, nil); err != nil {
			return EpisodeSummary{}, apiErr(http.StatusInternalServerError, CodeInternal, "%v", err)
		}
	}
	return summary(ep.rec), nil
}

func (s *Server) getEpisode(r *http.Request) (any, *APIError) {
	id, aerr := pathID(r)
	if aerr != nil {
		return nil, aerr
	}
	rec, aerr := s.recordOf(r.Context(), id)
	if aerr != nil {
		return nil, aerr
	}
	return rec, nil
}

// listEpisodes lists episodes, newest first: from the journal when there
// is one (so lost episodes of a previous process show), else from memory.
func (s *Server) listEpisodes(r *http.Request) (any, *APIError) {
	state := r.URL.Query().Get("state")
	switch state {
	case "", StateOpen, StateEvaluated, StateClosed, StateExpired, StateFailed, StateLost, StateTruncated:
	default:
		return nil, apiErr(http.StatusBadRequest, CodeBadRequest, "state %q: expected open, evaluated, closed, expired, truncated, failed or lost", clip(state, 32))
	}
	limit := 100
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 10000 {
			return nil, apiErr(http.StatusBadRequest, CodeBadRequest, "limit %q: expected 1 to 10000", clip(v, 16))
		}
		limit = n
	}
	var recs []record
	if s.jr != nil {
		var err error
		if recs, err = s.jr.list(r.Context(), state, limit); err != nil {
			return nil, apiErr(http.StatusInternalServerError, CodeInternal, "%v", err)
		}
	} else {
		s.mu.Lock()
		for _, ep := range s.eps {
			recs = append(recs, ep.snapshot())
		}
		s.mu.Unlock()
		recs = filterRecords(recs, state, limit)
	}
	out := make([]EpisodeSummary, len(recs))
	for i, rec := range recs {
		out[i] = summary(rec)
	}
	return map[string]any{"episodes": out, "lost_at_start": s.lost}, nil
}

func filterRecords(recs []record, state string, limit int) []record {
	var out []record
	for _, r := range recs {
		if state == "" || r.State == state {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created.After(out[j].Created) })
	return out[:min(limit, len(out))]
}

// exportEpisode returns the episode as a native trajectory: the prefix of
// the reference version it was reset on, then the actions with their live observations.
func (s *Server) exportEpisode(r *http.Request) (any, *APIError) {
	id, aerr := pathID(r)
	if aerr != nil {
		return nil, aerr
	}
	rec, aerr := s.recordOf(r.Context(), id)
	if aerr != nil {
		return nil, aerr
	}
	e, aerr := s.entryOf(rec)
	if aerr != nil {
		return nil, aerr
	}
	return &trajectory.Trajectory{ID: rec.ID, Task: e.Task.ID, Vars: e.Ref.Vars, Messages: e.Ref.Messages,
		Steps: stepsOf(e, rec)}, nil
}

// openCount is how many episodes hold a sandbox.
func (s *Server) openCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, ep := range s.eps {
		if ep.holds.Load() {
			n++
		}
	}
	return n
}
