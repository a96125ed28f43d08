package server

import (
	"errors"
	"net/http"

	"github.com/rbx-sandbox/rbx/evidence"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// evidence scores the rubric (and the verifier when asked) against an
// episode's state without touching its sandbox: the reference prefix and
// the episode's actions are replayed into a scratch sandbox, scored there
// and removed. The scratch sandbox holds one --max-episodes slot while it
// lives; calls per episode are rate-limited (WithEvidenceInterval).
func (s *Server) evidence(r *http.Request) (any, *APIError) {
	id, aerr := pathID(r)
	if aerr != nil {
		return nil, aerr
	}
	var req EvidenceRequest
	if e := decode(r, &req); e != nil {
		return nil, e
	}
	rec, aerr := s.recordOf(r.Context(), id)
	if aerr != nil {
		return nil, aerr
	}
	e, aerr := s.entryOf(rec)
	if aerr != nil {
		return nil, aerr
	}
	at := rec.K + len(rec.Actions)
	if req.T != nil {
		if *req.T < 0 || *req.T > at {
			return nil, apiErr(http.StatusBadRequest, CodeBadCheckpoint, "t: expected 0 ≤ t ≤ %d (k = %d plus %d actions)", at, rec.K, len(rec.Actions)).With("max", at)
		}
		at = *req.T
	}
	if aerr := s.evidenceAllowed(id); aerr != nil {
		return nil, aerr
	}
	claim, aerr := s.reserve(1)
	if aerr != nil {
		return nil, aerr
	}
	defer claim.release()
	base := min(at, rec.K)
	st := evidence.State{Task: e.Task, Ref: e.Ref, K: base, Actions: recordedActions(rec.Actions[:at-base])}
	res, err := evidence.Score(r.Context(), s.evidenceSource(), st, req.Verifier)
	if err != nil {
		var re *reset.Error
		if errors.As(err, &re) {
			return nil, resetFailed(err)
		}
		return nil, apiErr(http.StatusServiceUnavailable, CodeResetFailed, "%v", err).With("retryable", true)
	}
	return EvidenceResponse{Episode: id, Task: rec.Task, K: rec.K, At: at, Score: res.Score, Rubric: res.Rubric,
		Verifier: res.Verifier, Cost: EvidenceCost(res.Cost)}, nil
}

// recordedActions is actions as steps carrying their live observations.
func recordedActions(actions []Action) []trajectory.Step {
	out := make([]trajectory.Step, len(actions))
	for i, a := range actions {
		out[i] = a.Step
		out[i].Observation = &actions[i].Observation
	}
	return out
}
