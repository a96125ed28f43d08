package server

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	epi "github.com/rbx-sandbox/rbx/episode"
	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/trajectory/chat"
	"github.com/rbx-sandbox/rbx/verifier"
)

// conclude records an episode's outcome and answers it: the verifier's
// verdict res, or, when the policy ended the episode (end), a failure
// with reward 0. Either reaches the curriculum as the policy's. Callers
// hold ep.mu.
func (s *Server) conclude(ctx context.Context, ep *episode, res *verifier.Result, end *epi.End) (EvaluateResponse, *APIError) {
	var wend *End
	if end != nil {
		// Its sandbox is not recycled: the policy left it exhausted.
		s.drop(ep)
		we := wireEnd(*end)
		wend, ep.rec.End = &we, &we
		res = &verifier.Result{ExitCode: -1, Output: "the policy's action ended the episode (" + end.Reason + "): " + clip(end.Detail, 2000)}
		s.met.ends.WithLabelValues(string(end.Attribution), end.Reason).Inc()
	}
	iv, n, ivTok, tok := interventions(ep.rec.Actions)
	out := EvaluateResponse{Episode: ep.rec.ID, Task: ep.rec.Task, K: ep.rec.K, T: ep.rec.T, Success: res.Passed, Score: res.Score,
		Verifier: *res, Rubric: res.Rubric, Steps: n, ReferenceVersion: ep.entry.version, Intervened: Intervention{Steps: iv, Tokens: ivTok},
		Recovered: ep.rec.Recovered, End: wend}
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
	var aerr *APIError
	if out.Observed, aerr = s.observe(ep, iv == 0 && ep.rec.Feeds, res.Passed); aerr != nil {
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
	ep.answer = &out
	return out, nil
}

// policyStepEnd answers a step whose action ended the episode (it
// exhausted the sandbox's processes or memory, or fails every sandbox):
// the action is recorded with what it did, the episode is concluded as
// the policy's failure (reward 0, to the curriculum), and the answer is
// terminated with the end. Callers hold ep.mu.
func (s *Server) policyStepEnd(ctx context.Context, ep *episode, req StepRequest, st trajectory.Step, obs trajectory.Observation, end epi.End, start time.Time) (StepResponse, *APIError) {
	obs.Error = "the action ended the episode (" + end.Reason + "): " + clip(end.Detail, 2000)
	if obs.ExitCode == nil || *obs.ExitCode == 0 {
		one := 1
		obs.ExitCode = &one
	}
	ep.rec.Actions = append(ep.rec.Actions, Action{Step: st, Observation: obs, Intervened: req.Intervened, Tokens: req.Tokens})
	out, aerr := s.conclude(ctx, ep, nil, &end)
	if aerr != nil {
		return StepResponse{}, aerr
	}
	iv, n, _, _ := interventions(ep.rec.Actions)
	return StepResponse{Episode: ep.rec.ID, Step: ep.rec.K + n - 1, Observation: obs,
		Message: chatResult(req, ep, obs), Terminated: true,
		Info: StepInfo{ServerMS: ms(since(start)), ExecMS: obs.DurationMS, Steps: n, IntervenedSteps: iv, Recovered: ep.rec.Recovered, End: out.End}}, nil
}

// chatResult is the tool message answering the episode's last action:
// the policy's call id, or one made from the step's index.
func chatResult(req StepRequest, ep *episode, obs trajectory.Observation) json.RawMessage {
	return resultMessage(req.ToolCall.ID, ep.rec.K+len(ep.rec.Actions)-1, obs)
}

// resultMessage is the tool message answering step n's call callID (""
// : one made from n).
func resultMessage(callID string, n int, obs trajectory.Observation) json.RawMessage {
	if callID == "" {
		callID = chat.CallID(n)
	}
	return chat.Result(callID, chat.ObservationText(obs))
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
