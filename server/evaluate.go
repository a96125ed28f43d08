package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	epi "github.com/rbx-sandbox/rbx/episode"
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
// (POST /v1/episodes/{id}/evaluate; the end of an OpenEnv episode). A
// retry of an evaluation that was answered gets the same answer. A
// sandbox lost to the infrastructure under the verifier is rebuilt and
// the verifier run again (survive); a verifier that cannot run at all is
// checked on the reference's end state (verifierBroken) before its
// failure is charged to the policy.
func (s *Server) evaluateEpisode(ctx context.Context, id string) (EvaluateResponse, *APIError) {
	ep, aerr := s.live(ctx, id)
	if aerr != nil {
		if out, ok := s.recordedAnswer(ctx, id); ok {
			return out, nil
		}
		return EvaluateResponse{}, aerr
	}
	ep.mu.Lock()
	defer ep.mu.Unlock()
	if ep.answer != nil {
		return *ep.answer, nil
	}
	if aerr := s.overdue(ctx, ep); aerr != nil {
		return EvaluateResponse{}, aerr
	}
	if aerr := s.wake(ctx, ep); aerr != nil {
		return EvaluateResponse{}, aerr
	}
	ep.used = now()
	var res *verifier.Result
	end, err := s.survive(ctx, ep, func(ctx context.Context) error {
		var err error
		res, err = s.verify(ctx, ep)
		return err
	})
	switch {
	case err != nil:
		return EvaluateResponse{}, s.cancelled(ctx, ep)
	case end != nil && end.Attribution != epi.Policy:
		return EvaluateResponse{}, s.ended(ctx, ep, *end)
	case end == nil && !res.Passed && unrun(res):
		// The verifier could not run: the sandbox's own exhaustion (the
		// policy's), else a verifier broken on the reference too (the
		// task's), else the policy broke what it needs (a failure).
		if pe := s.unstartable(ctx, ep, res); pe != nil {
			end = pe
		} else if why := s.verifierBroken(ctx, ep.entry); why != "" {
			return EvaluateResponse{}, s.ended(ctx, ep, epi.TaskEnd(epi.ReasonVerifierBroken, why))
		}
	}
	return s.conclude(ctx, ep, res, end)
}

// verify runs the task's verifier in ep's sandbox under rbx's own
// deadline: the verify timeout for the command and each rubric item,
// plus outsideGrace (a frozen sandbox's verifier returns
// episode.ErrFrozen there, not when the sandbox thaws).
func (s *Server) verify(ctx context.Context, ep *episode) (*verifier.Result, error) {
	tk := ep.entry.Task
	dctx, cancel := context.WithTimeout(ctx, tk.VerifyTimeout()*(1+time.Duration(len(tk.Rubric)))+outsideGrace)
	defer cancel()
	res, err := verifier.Run(dctx, ep.sb, tk)
	switch {
	case ctx.Err() != nil:
		// The client went away mid-verify: what the verifier saw (often a
		// "timeout") is not the episode's outcome.
		return nil, ctx.Err()
	case err != nil && dctx.Err() != nil:
		return nil, errors.Join(epi.ErrFrozen, err)
	case err != nil:
		return nil, err
	case res.TimedOut && s.frozen(ctx, ep):
		return nil, errors.Join(epi.ErrFrozen, errors.New("the verifier timed out in a paused sandbox"))
	}
	return res, nil
}

// unstartable charges a verifier that could not start to the policy when
// the sandbox is at its own limits (its processes exhausted), nil
// otherwise.
func (s *Server) unstartable(ctx context.Context, ep *episode, res *verifier.Result) *epi.End {
	end := s.attribute(ctx, ep, fmt.Errorf("the verifier could not start (exit %d): %s", res.ExitCode, clip(res.Output, 500)))
	if end.Attribution != epi.Policy {
		return nil
	}
	return &end
}

// unrun reports a verifier that failed without running as written: its
// command not found or not executable (exit 127, 126), or unable to fork.
func unrun(res *verifier.Result) bool {
	return res.ExitCode == 126 || res.ExitCode == 127 || epi.ForkFailed(res.Output)
}

// recordedAnswer is the answer of an evaluation the journal holds (the
// episode no longer in memory: a restart, or past --episode-ttl), for a
// client retrying its evaluate.
func (s *Server) recordedAnswer(ctx context.Context, id string) (EvaluateResponse, bool) {
	if s.jr == nil {
		return EvaluateResponse{}, false
	}
	rec, found, err := s.jr.get(ctx, id)
	if err != nil || !found || rec.State != StateEvaluated || rec.Outcome == nil {
		return EvaluateResponse{}, false
	}
	iv, n, ivTok, _ := interventions(rec.Actions)
	out := EvaluateResponse{Episode: rec.ID, Task: rec.Task, K: rec.K, T: rec.T, Success: rec.Outcome.Success, Reward: rec.Outcome.Reward,
		Steps: n, ReferenceVersion: max(rec.RefVersion, 1), Intervened: Intervention{Steps: iv, Tokens: ivTok, Share: rec.Outcome.InterventionShr},
		ShiftExceeded: rec.Outcome.ShiftExceeded, Observed: rec.Feeds && iv == 0, Recovered: rec.Recovered, End: rec.End, Rubric: []verifier.RubricScore{}}
	if rec.Verifier != nil {
		out.Verifier, out.Score = *rec.Verifier, rec.Verifier.Score
		if rec.Verifier.Rubric != nil {
			out.Rubric = rec.Verifier.Rubric
		}
	}
	return out, true
}
