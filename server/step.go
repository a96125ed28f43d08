package server

import (
	"context"
	"net/http"

	epi "github.com/rbx-sandbox/rbx/episode"
	"github.com/rbx-sandbox/rbx/trajectory"
)

func (s *Server) step(r *http.Request) (any, *APIError) {
	id, aerr := pathID(r)
	if aerr != nil {
		return nil, aerr
	}
	var req StepRequest
	if e := decode(r, &req); e != nil {
		return nil, e
	}
	return s.stepEpisode(r.Context(), id, req)
}

// stepEpisode runs one action in episode id (POST /v1/episodes/{id}/step,
// an OpenEnv step).
func (s *Server) stepEpisode(ctx context.Context, id string, req StepRequest) (StepResponse, *APIError) {
	start := now()
	if req.ToolCall == nil {
		return StepResponse{}, apiErr(http.StatusBadRequest, CodeBadToolCall, `tool_call: required, e.g. {"name": "shell", "arguments": {"command": "ls"}}`)
	}
	if req.Tokens < 0 {
		return StepResponse{}, apiErr(http.StatusBadRequest, CodeBadRequest, "tokens %d: expected ≥ 0", req.Tokens)
	}
	ep, aerr := s.live(ctx, id)
	if aerr != nil {
		return StepResponse{}, aerr
	}
	ep.mu.Lock()
	defer ep.mu.Unlock()
	if rep, aerr := s.repeated(ep, req); rep != nil || aerr != nil {
		if aerr != nil {
			return StepResponse{}, aerr
		}
		return *rep, nil
	}
	if aerr := s.overdue(ctx, ep); aerr != nil {
		return StepResponse{}, aerr
	}
	if aerr := s.wake(ctx, ep); aerr != nil {
		return StepResponse{}, aerr
	}
	if len(ep.rec.Actions) >= s.cfg.maxSteps {
		return StepResponse{}, apiErr(http.StatusConflict, CodeStepLimit, "episode %s used its %d steps; evaluate or close it", id, s.cfg.maxSteps)
	}
	st, aerr := toStep(*req.ToolCall, ep.run.Vars(), kindsOf(ep.entry))
	if aerr != nil {
		return StepResponse{}, aerr
	}
	// The action is recorded as asked; it runs within the episode's time.
	bounded, cut := withinDeadline(ep, st)
	var obs trajectory.Observation
	end, err := s.survive(ctx, ep, func(ctx context.Context) error {
		var err error
		obs, err = s.exec(ctx, ep, bounded)
		return err
	})
	ep.used = now()
	switch {
	case err != nil:
		return StepResponse{}, s.cancelled(ctx, ep)
	case end != nil && end.Attribution != epi.Policy:
		return StepResponse{}, s.ended(ctx, ep, *end)
	case end != nil:
		return s.policyStepEnd(ctx, ep, req, st, obs, *end, start)
	}
	// Capped at the step limit even when the deadline cut it shorter.
	obs.TimeoutCapped = obs.TimeoutCapped || st.Timeout.D() > ep.run.StepLimit()
	s.met.stepExec.Observe(obs.DurationMS / 1000)
	a := Action{Step: st, Observation: obs, Intervened: req.Intervened, Tokens: req.Tokens}
	ep.rec.Actions = append(ep.rec.Actions, a)
	iv, n, _, _ := interventions(ep.rec.Actions)
	resp := StepResponse{Episode: id, Step: ep.rec.K + len(ep.rec.Actions) - 1, Observation: obs,
		Message: chatResult(req, ep, a.Observation), Terminated: obs.SessionLost,
		Info: StepInfo{ServerMS: ms(since(start)), ExecMS: obs.DurationMS, Steps: n, IntervenedSteps: iv, Recovered: ep.rec.Recovered}}
	if s.jr != nil { // before the answer: a restart rebuilds the episode with this action
		if err := s.jr.appendAction(ctx, id, len(ep.rec.Actions)-1, a); err != nil {
			return StepResponse{}, apiErr(http.StatusInternalServerError, CodeInternal, "%v", err)
		}
	}
	switch {
	case cut && obs.TimedOut, !now().Before(ep.deadline):
		s.truncate(ctx, ep)
		resp.Truncated, resp.Info.Truncation = true, TruncEpisodeTimeout
	case n >= s.cfg.maxSteps:
		resp.Truncated, resp.Info.Truncation = true, TruncStepLimit
	}
	return resp, nil
}

// cancelled ends an episode whose client went away mid-call: what the
// call did to the sandbox is unknown, so the episode cannot go on.
func (s *Server) cancelled(ctx context.Context, ep *episode) *APIError {
	s.drop(ep)
	end := wireEnd(epi.InfraEnd(epi.ReasonCancelled, "the client went away mid-call"))
	ep.rec.End = &end
	_ = s.finish(ctx, ep, StateFailed, nil)
	return apiErr(499, CodeBadRequest, "episode %s: request cancelled mid-call; the episode is failed", ep.rec.ID)
}

// stillOpen rejects calls on finished episodes. Callers hold ep.mu.
func (s *Server) stillOpen(ep *episode) *APIError {
	if ep.rec.State != StateOpen {
		return apiErr(http.StatusConflict, CodeEpisodeFinished, "episode %s is %s", ep.rec.ID, ep.rec.State).With("state", ep.rec.State)
	}
	return nil
}

// live returns an episode held in memory, or explains why there is none:
// finished long ago (the journal knows it), or unknown.
func (s *Server) live(ctx context.Context, id string) (*episode, *APIError) {
	s.mu.Lock()
	ep, ok := s.eps[id]
	s.mu.Unlock()
	if ok {
		return ep, nil
	}
	if s.jr != nil {
		if rec, found, err := s.jr.get(ctx, id); err == nil && found {
			return nil, apiErr(http.StatusConflict, CodeEpisodeFinished, "episode %s is %s", id, rec.State).With("state", rec.State)
		}
	}
	return nil, apiErr(http.StatusNotFound, CodeUnknownEpisode, "unknown episode %s", id)
}

// recordOf returns an episode's record from memory or the journal.
func (s *Server) recordOf(ctx context.Context, id string) (record, *APIError) {
	s.mu.Lock()
	ep, ok := s.eps[id]
	s.mu.Unlock()
	if ok {
		return ep.snapshot(), nil
	}
	if s.jr != nil {
		rec, found, err := s.jr.get(ctx, id)
		if err != nil {
			return record{}, apiErr(http.StatusInternalServerError, CodeInternal, "%v", err)
		}
		if found {
			return rec, nil
		}
	}
	return record{}, apiErr(http.StatusNotFound, CodeUnknownEpisode, "unknown episode %s", id)
}

// stepsOf is the episode's trajectory steps: the reference prefix, then
// the actions with their live observations.
func stepsOf(e *Entry, rec record) []trajectory.Step {
	steps := append([]trajectory.Step(nil), e.Ref.Steps[:rec.K]...)
	for _, a := range rec.Actions {
		st := a.Step
		st.Observation = a.Observation.Recorded()
		if st.Action == trajectory.KindHTTP {
			st.Observation.ExitCode = nil // the status says it
		}
		st.Tokens, st.Intervened = a.Tokens, a.Intervened
		steps = append(steps, st)
	}
	return steps
}
