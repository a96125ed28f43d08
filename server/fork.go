package server

import (
	"net/http"
)

// fork starts a new episode whose sandbox replays the parent's own first
// t actions (rollout-time intervention): the reference prefix to the
// parent's k, then the parent's actions, with their intervened flags and
// token counts. The parent may be open or finished. The fork's outcome
// does not go to the curriculum.
func (s *Server) fork(r *http.Request) (any, *APIError) {
	start := now()
	id, aerr := pathID(r)
	if aerr != nil {
		return nil, aerr
	}
	var req ForkRequest
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
	max := rec.K + len(rec.Actions)
	if req.T == nil || *req.T < 0 || *req.T > max {
		return nil, apiErr(http.StatusBadRequest, CodeBadCheckpoint, "t: expected 0 ≤ t ≤ %d (k = %d plus %d actions)", max, rec.K, len(rec.Actions)).With("max", max)
	}
	t := *req.T
	base := min(t, rec.K) // reset checks that it is a checkpoint
	claim, aerr := s.reserve(1)
	if aerr != nil {
		return nil, aerr
	}
	defer claim.release()
	ep, info, aerr := s.open(r.Context(), e, base, nil, nil)
	if aerr != nil {
		return nil, aerr
	}
	inheritStart := now()
	for _, a := range rec.Actions[:t-base] {
		obs, err := s.exec(r.Context(), ep, a.Step)
		if err != nil {
			s.discard([]*episode{ep})
			return nil, resetFailed(err).With("step", ep.rec.K+len(ep.rec.Actions))
		}
		ep.rec.Actions = append(ep.rec.Actions, Action{Step: a.Step, Observation: obs, Intervened: a.Intervened, Tokens: a.Tokens, Inherited: true})
	}
	msgs, err := actionMessages(ep.rec.Actions, base)
	if err != nil {
		s.discard([]*episode{ep})
		return nil, apiErr(http.StatusInternalServerError, CodeInternal, "%v", err)
	}
	info.Messages = append(info.Messages, msgs...)
	info.Timings.InheritMS = ms(since(inheritStart))
	info.Parent, info.ForkT = id, &t
	ep.rec.Parent, ep.rec.ForkT = id, t
	if aerr := s.admit(r.Context(), ep, claim); aerr != nil {
		s.discard([]*episode{ep})
		return nil, aerr
	}
	return ForkResponse{Episode: info, Tools: toolsOf(ep.entry), TotalMS: ms(since(start))}, nil
}
