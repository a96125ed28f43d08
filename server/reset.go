package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
)

// resetTimings reports a reset's timings.
func resetTimings(rs *reset.Episode, dur time.Duration) Timings {
	t := rs.Timings
	return Timings{ResetMS: ms(dur), ReplayMS: ms(t.Replay), PoolWaitMS: ms(t.PoolWait), CacheApplyMS: ms(t.Apply),
		CacheBuildMS: ms(t.Build), CachedSteps: rs.Cached, Cache: string(rs.Cache), Staged: rs.Staged}
}

func (s *Server) reset(r *http.Request) (any, *APIError) {
	var req ResetRequest
	if e := decode(r, &req); e != nil {
		return nil, e
	}
	return s.resetGroup(r.Context(), req)
}

// resetGroup opens req.Group episodes at one k (POST /v1/reset; OpenEnv's
// reset, a group of one).
func (s *Server) resetGroup(ctx context.Context, req ResetRequest) (ResetResponse, *APIError) {
	start := now()
	n := req.Size()
	if limit := min(s.cfg.maxGroup, s.cfg.maxOpen); n < 1 || n > limit {
		// A group no budget can ever hold is the caller's error: 400,
		// never retryable (a 429 would have it retried forever); so is an
		// empty one (a trainer's bug, not a request for one episode).
		return ResetResponse{}, apiErr(http.StatusBadRequest, CodeBadRequest, "group %d: expected 1 to %d (--max-group, --max-episodes)", n, limit).
			With("retryable", false)
	}
	e, k, purpose, claim, aerr := s.pick(req)
	if aerr != nil {
		return ResetResponse{}, aerr
	}
	defer claim.release()
	hold, err := s.rs.Hold(ctx, e.Task, e.Ref, k, n)
	if err != nil {
		if ae := capacityErr(err, s.rs.Budget()); ae != nil {
			return ResetResponse{}, ae
		}
		return ResetResponse{}, resetFailed(err)
	}
	defer hold.Close()
	eps := make([]*episode, n)
	infos := make([]EpisodeInfo, n)
	g, gctx := errgroup.WithContext(ctx)
	memo := &messageMemo{}
	for i := range eps {
		g.Go(func() error {
			ep, info, aerr := s.open(gctx, e, k, memo, hold)
			if aerr != nil {
				return aerr
			}
			info.Seed = req.Seed
			eps[i], infos[i] = ep, info
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		s.discard(eps)
		var ae *APIError
		if errors.As(err, &ae) {
			return ResetResponse{}, ae
		}
		return ResetResponse{}, resetFailed(err)
	}
	feed := purpose != string(curriculum.PurposeExplicit) || req.FeedCurriculum
	for _, ep := range eps {
		ep.rec.Feeds = feed && k < e.Ref.Len() && e.Ref.ValidCheckpoint(k)
		ep.rec.Purpose, ep.groupKey = purpose, req.GroupKey
		if aerr := s.admit(ctx, ep, claim); aerr != nil {
			s.discard(eps)
			return ResetResponse{}, aerr
		}
	}
	return ResetResponse{Task: e.Task.ID, K: k, T: e.Ref.Len(), Purpose: purpose, Tools: toolsOf(e),
		Episodes: infos, TotalMS: ms(since(start))}, nil
}

// pick looks the task up, claims the group's --max-episodes slots and
// chooses k, under adoptMu: the reference and k are read together (an
// adoption between them would pair k of one version with the steps of
// another), and the slots are claimed before k so that a refused group
// does not move the curriculum. On success the caller owns the claim on
// req.Size() slots (admit, release).
func (s *Server) pick(req ResetRequest) (*Entry, int, string, *slots, *APIError) {
	s.adoptMu.RLock()
	defer s.adoptMu.RUnlock()
	e, aerr := s.entry(req.Task)
	if aerr != nil {
		return nil, 0, "", nil, aerr
	}
	claim, aerr := s.reserve(req.Size())
	if aerr != nil {
		return nil, 0, "", nil, aerr
	}
	k, purpose, aerr := s.checkpoint(e, req)
	if aerr != nil {
		claim.release()
		return nil, 0, "", nil, aerr
	}
	return e, k, purpose, claim, nil
}

// checkpoint is the request's k: explicit, or the curriculum's choice.
func (s *Server) checkpoint(e *Entry, req ResetRequest) (int, string, *APIError) {
	var auto string
	if len(req.Checkpoint) == 0 || (json.Unmarshal(req.Checkpoint, &auto) == nil && auto == "auto") {
		pick := func() (int, string, error) {
			k, p, err := s.eng.NextGroup(e.Task.ID, req.Size())
			return k, string(p), err
		}
		var (
			k   int
			p   string
			err error
		)
		if req.GroupKey == "" {
			k, p, err = pick()
		} else {
			join := func(k int) error { return s.eng.JoinGroup(e.Task.ID, k, req.Size()) }
			k, p, err = s.groups.checkpoint(e.Task.ID, req.GroupKey, pick, join)
		}
		if err != nil {
			return 0, "", apiErr(http.StatusInternalServerError, CodeInternal, "curriculum: %v", err)
		}
		return k, p, nil
	}
	var k int
	if err := json.Unmarshal(req.Checkpoint, &k); err != nil {
		return 0, "", apiErr(http.StatusBadRequest, CodeBadRequest, `checkpoint %s: expected "auto" or an integer k`, clip(string(req.Checkpoint), 40))
	}
	return k, string(curriculum.PurposeExplicit), nil // reset checks k
}

// open resets one sandbox to k and builds its episode (not yet admitted),
// which continues the reset's replay run. memo is shared by a group's
// members (nil: none).
func (s *Server) open(ctx context.Context, e *Entry, k int, memo *messageMemo, hold *reset.Hold) (*episode, EpisodeInfo, *APIError) {
	start := now()
	rs, err := s.rs.ResetHeld(ctx, hold, e.Task, e.Ref, k)
	dur := since(start)
	if err != nil {
		s.met.resets.WithLabelValues(s.met.task(e.Task.ID), "failed").Inc()
		if ae := capacityErr(err, s.rs.Budget()); ae != nil {
			return nil, EpisodeInfo{}, ae
		}
		ae := resetFailed(err)
		if errors.Is(err, replayer.ErrCheckpoint) {
			ae.With("t", e.Ref.Len())
		}
		return nil, EpisodeInfo{}, ae
	}
	sb, rep := rs.Sandbox, rs.Report
	s.met.resets.WithLabelValues(s.met.task(e.Task.ID), "ok").Inc()
	s.met.resetDur.WithLabelValues(s.met.task(e.Task.ID)).Observe(dur.Seconds())
	s.met.observePhases(rs)
	id := newEpisodeID()
	t := now()
	ep := &episode{entry: e, sb: sb, run: rs.Run, used: t,
		rec: record{ID: id, Task: e.Task.ID, K: k, T: e.Ref.Len(), RefVersion: e.version, State: StateOpen, Created: t, Updated: t}}
	ep.holds.Store(true)
	info := EpisodeInfo{ID: id, Task: e.Task.ID, K: k, T: e.Ref.Len(), RefVersion: e.version,
		Timings: resetTimings(rs, dur)}
	info.Messages, err = prefixMessages(e, rep, k, memo)
	if err != nil {
		s.rs.Release(sb)
		return nil, EpisodeInfo{}, apiErr(http.StatusInternalServerError, CodeInternal, "%v", err)
	}
	return ep, info, nil
}

// admit journals an episode as open and makes it reachable, turning one
// of claim's slots into it; its episode_timeout runs from now.
func (s *Server) admit(ctx context.Context, ep *episode, claim *slots) *APIError {
	ep.deadline = now().Add(ep.entry.Task.EpisodeTimeout())
	if s.jr != nil {
		if err := s.jr.put(ctx, ep.snapshot()); err != nil {
			return apiErr(http.StatusInternalServerError, CodeInternal, "%v", err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return apiErr(http.StatusServiceUnavailable, CodeShuttingDown, "the server is shutting down")
	}
	if !claim.takeLocked() {
		return apiErr(http.StatusInternalServerError, CodeInternal, "episode %s: admitted without a slot", ep.rec.ID)
	}
	s.eps[ep.rec.ID] = ep
	return nil
}

// discard releases the sandboxes of episodes that were never handed out.
func (s *Server) discard(eps []*episode) {
	for _, ep := range eps {
		if ep == nil {
			continue
		}
		ep.mu.Lock()
		if ep.rec.State == StateOpen {
			_ = s.finish(context.Background(), ep, StateClosed, nil)
		}
		ep.mu.Unlock()
		s.mu.Lock()
		delete(s.eps, ep.rec.ID)
		s.mu.Unlock()
	}
}

// finish releases the episode's sandbox and journals its final state.
// Callers hold ep.mu.
func (s *Server) finish(ctx context.Context, ep *episode, state string, out *Evaluation) error {
	if ep.sb != nil {
		s.rs.Release(ep.sb)
		ep.sb = nil
		ep.holds.Store(false)
	}
	ep.rec.State, ep.rec.Updated, ep.rec.Outcome = state, time.Now(), out
	s.groups.ended(ep.rec.Task, ep.groupKey)
	if s.jr == nil {
		return nil
	}
	r := ep.rec
	r.Actions = slices.Clone(ep.rec.Actions)
	return s.jr.put(ctx, r)
}

// entry looks a task's current reference up by id.
func (s *Server) entry(id string) (*Entry, *APIError) {
	if id == "" {
		return nil, apiErr(http.StatusBadRequest, CodeBadRequest, "task: required")
	}
	if !idPattern.MatchString(id) {
		return nil, apiErr(http.StatusBadRequest, CodeBadRequest, "task %q: not a valid id", clip(id, 64))
	}
	e := s.refs.current(id)
	if e == nil {
		return nil, apiErr(http.StatusNotFound, CodeUnknownTask, "unknown task %q (GET /v1/tasks lists them)", id)
	}
	return e, nil
}
