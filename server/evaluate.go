package server

import (
	"context"
	"net/http"

	"github.com/rbx-sandbox/rbx/verifier"
)

func (s *Server) evaluate(r *http.Request) (any, *APIError) {
	id, aerr := pathID(r)
	if aerr != nil {
		return nil, aerr
	}
	return s.evaluateEpisode(r.Context(), id)
}

// evaluateEpisode runs the verifier on episode id and records its outcome
// (POST /v1/episodes/{id}/evaluate; the end of an OpenEnv episode).
func (s *Server) evaluateEpisode(ctx context.Context, id string) (EvaluateResponse, *APIError) {
	ep, aerr := s.live(ctx, id)
	if aerr != nil {
		return EvaluateResponse{}, aerr
	}
	ep.mu.Lock()
	defer ep.mu.Unlock()
	if aerr := s.overdue(ctx, ep); aerr != nil {
		return EvaluateResponse{}, aerr
	}
	ep.used = now()
	res, err := verifier.Run(ctx, ep.sb, ep.entry.Task)
	if err == nil && ctx.Err() != nil {
		// The client went away mid-verify: what the verifier saw (often a
		// "timeout") is not the episode's outcome, and never reaches the
		// curriculum.
		err = ctx.Err()
	}
	if err != nil {
		return EvaluateResponse{}, s.stepFailed(ctx, ep, err)
	}
	iv, n, ivTok, tok := interventions(ep.rec.Actions)
	out := EvaluateResponse{Episode: ep.rec.ID, Task: ep.rec.Task, K: ep.rec.K, T: ep.rec.T, Success: res.Passed, Score: res.Score,
		Verifier: *res,
		Rubric:   res.Rubric, Steps: n, ReferenceVersion: ep.entry.version, Intervened: Intervention{Steps: iv, Tokens: ivTok}}
	if out.Rubric == nil {
		out.Rubric = []verifier.RubricScore{}
	}
	if res.Passed {
		out.Reward = 1
	}
	if n > 0 {
		out.Intervened.Share = float64(iv) / float64(n)
	}
	if tok > 0 {
		out.Intervened.TokenShare = float64(ivTok) / float64(tok)
	}
	out.ShiftExceeded = out.Intervened.Share > s.cfg.maxShare || out.Intervened.TokenShare > s.cfg.maxShare
	// The outcome is durable (curriculum, then journal) before the answer.
	if out.Observed, aerr = s.observe(ep, iv == 0 && ep.observe, res.Passed); aerr != nil {
		return EvaluateResponse{}, aerr
	}
	kept := *res
	kept.Output = clip(kept.Output, verifierExcerpt)
	ep.rec.Verifier = &kept
	oc := &Evaluation{Success: res.Passed, Reward: out.Reward, InterventionShr: out.Intervened.Share, ShiftExceeded: out.ShiftExceeded}
	if err := s.finish(ctx, ep, StateEvaluated, oc); err != nil {
		return EvaluateResponse{}, apiErr(http.StatusInternalServerError, CodeInternal, "%v", err)
	}
	out.ReferenceCandidate = res.Passed && s.offer(ep.entry, ep.rec)
	result := map[bool]string{true: "success", false: "failure"}[res.Passed]
	s.met.outcomes.WithLabelValues(s.met.task(ep.rec.Task), result).Inc()
	if out.Observed {
		s.hist.add(HistoryEvent{Episode: ep.rec.ID, Task: ep.rec.Task, K: ep.rec.K, Purpose: ep.rec.Purpose, Success: res.Passed, At: ep.rec.Updated.UTC()})
	}
	return out, nil
}

// observe feeds an outcome to the curriculum when the episode's state is
// one the curriculum still serves: an episode reset at k on a reference
// version that was since replaced counts only if k is in the prefix every
// later version kept (docs/reference-refresh.md).
func (s *Server) observe(ep *episode, policy, success bool) (bool, *APIError) {
	s.adoptMu.RLock()
	defer s.adoptMu.RUnlock()
	if !policy || !s.refs.sameState(ep.rec.Task, ep.entry.version, ep.rec.K) {
		return false, nil
	}
	if err := s.eng.Observe(ep.rec.Task, ep.rec.K, success); err != nil {
		return false, apiErr(http.StatusInternalServerError, CodeInternal, "record outcome: %v", err)
	}
	return true, nil
}
