package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	epi "github.com/rbx-sandbox/rbx/episode"
	"github.com/rbx-sandbox/rbx/server/api"
)

// resumeOpen takes back the episodes a previous process left open (a
// crash, kill -9, a drain that cut them): each is held without a sandbox
// until its next call, which rebuilds one by replay (wake) and goes on
// under the same id. Its episode_timeout counts only the time it ran
// before. An episode whose task or reference version is no longer served
// is lost, as before resuming existed.
func (s *Server) resumeOpen(ctx context.Context) error {
	recs, err := s.jr.openRecords(ctx)
	if err != nil {
		return err
	}
	t := now()
	for _, rec := range recs {
		e, aerr := s.entryOf(rec)
		if aerr != nil {
			rec.State, rec.Updated = StateLost, t
			rec.End = &api.End{Attribution: string(epi.Infrastructure), Reason: epi.ReasonServerRestarted,
				Detail: "the server restarted and no longer serves the episode's reference: " + aerr.Message, Retryable: true}
			if err := s.jr.put(ctx, rec); err != nil {
				return err
			}
			s.lost++
			continue
		}
		ran := max(rec.Updated.Sub(rec.Created), 0)
		ep := &episode{entry: e, rec: rec, used: t,
			deadline: t.Add(max(e.Task.EpisodeTimeout()-ran, time.Second))}
		s.eps[rec.ID] = ep
		s.resumed++
	}
	return nil
}

// wake gives an episode resumed after a restart its sandbox back: rebuilt
// by replay, counted as a recovery. One that cannot be rebuilt ends,
// charged to the infrastructure (or to the task when the reference no
// longer replays). Callers hold ep.mu.
func (s *Server) wake(ctx context.Context, ep *episode) *APIError {
	if ep.sb != nil || ep.rec.State != StateOpen {
		return nil
	}
	// The slot is held while the sandbox is rebuilt; then the episode
	// holds one as every open episode does.
	claim, aerr := s.reserve(1)
	if aerr != nil {
		return aerr
	}
	defer claim.release()
	start := now()
	if err := s.rebuild(ctx, ep); err != nil {
		if ctx.Err() != nil {
			return s.cancelled(ctx, ep)
		}
		end := epi.InfraEnd(epi.ReasonServerRestarted, err.Error())
		if re, ok := errors.AsType[*epi.RebuildError](err); ok {
			end = re.End
		}
		end.Detail = "rebuilding after a restart: " + end.Detail
		return s.ended(ctx, ep, end)
	}
	ep.rec.Recovered++
	ep.deadline = ep.deadline.Add(since(start)) // the rebuild is not the episode's time
	s.met.recovered.WithLabelValues(epi.ReasonServerRestarted).Inc()
	s.met.repairDur.Observe(since(start).Seconds())
	s.journalOpen(ctx, ep)
	return nil
}

// repeated answers a step retried by its number (StepRequest.Step) with
// the answer of the action that number ran, without running it again;
// nil, nil when the number is the next one. Callers hold ep.mu.
func (s *Server) repeated(ep *episode, req StepRequest) (*StepResponse, *APIError) {
	if req.Step == nil {
		return nil, nil
	}
	next := ep.rec.K + len(ep.rec.Actions)
	n := *req.Step
	switch {
	case n == next:
		return nil, nil
	case n < ep.rec.K || n > next:
		return nil, apiErr(http.StatusConflict, CodeStepConflict, "step %d: the episode's next step is %d (steps before %d are the reference's)", n, next, ep.rec.K).
			With("next", next)
	}
	a := ep.rec.Actions[n-ep.rec.K]
	if string(a.Step.Action) != req.ToolCall.Name {
		return nil, apiErr(http.StatusConflict, CodeStepConflict, "step %d ran %s, not %s: a retry repeats the call it retries", n, a.Step.Action, req.ToolCall.Name).
			With("next", next)
	}
	iv, cnt, _, _ := interventions(ep.rec.Actions[:n-ep.rec.K+1])
	callID := req.ToolCall.ID
	resp := StepResponse{Episode: ep.rec.ID, Step: n, Observation: a.Observation, Message: resultMessage(callID, n, a.Observation),
		Terminated: a.Observation.SessionLost,
		Info:       StepInfo{ExecMS: a.Observation.DurationMS, Steps: cnt, IntervenedSteps: iv, Recovered: ep.rec.Recovered, Repeated: true}}
	return &resp, nil
}
