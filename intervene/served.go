package intervene

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/rbx-sandbox/rbx/evidence"
	"github.com/rbx-sandbox/rbx/server/api"
	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/trajectory/tools"
)

// Client is what the loop needs of an rbx serve (server/client.Client).
type Client interface {
	Reset(ctx context.Context, req api.ResetRequest) (*api.ResetResponse, error)
	Step(ctx context.Context, episode string, req api.StepRequest) (*api.StepResponse, error)
	Evaluate(ctx context.Context, episode string) (*api.EvaluateResponse, error)
	Fork(ctx context.Context, episode string, req api.ForkRequest) (*api.ForkResponse, error)
	Evidence(ctx context.Context, episode string, req api.EvidenceRequest) (*api.EvidenceResponse, error)
	Close(ctx context.Context, episode string) error
}

// served runs episodes on an rbx serve: a rollout is an episode reset at
// k, an intervention a fork of it (the server replays the inherited
// actions), the evidence its evidence route (rate limits waited out).
type served struct {
	c    Client
	task string
	k    int
}

type servedSession struct {
	c    Client
	id   string
	k    int
	done bool
}

func (b *served) start(ctx context.Context) (session, error) {
	k, _ := json.Marshal(b.k)
	res, err := b.c.Reset(ctx, api.ResetRequest{Task: b.task, Checkpoint: k})
	if err != nil {
		return nil, err
	}
	if len(res.Episodes) != 1 {
		return nil, fmt.Errorf("reset %s at k=%d: %d episodes for a group of 1", b.task, b.k, len(res.Episodes))
	}
	return &servedSession{c: b.c, id: res.Episodes[0].ID, k: b.k}, nil
}

// fork asks the server for a fork of parent at step k+t; the inherited
// actions keep the parent's observations (the server's replay of them is
// in the fork's messages).
func (b *served) fork(ctx context.Context, parent session, acts []trajectory.Step, t int) (session, []trajectory.Step, error) {
	p := parent.(*servedSession)
	at := b.k + t
	res, err := b.c.Fork(ctx, p.id, api.ForkRequest{T: &at})
	if err != nil {
		return nil, nil, err
	}
	return &servedSession{c: b.c, id: res.Episode.ID, k: b.k}, append([]trajectory.Step(nil), acts[:t]...), nil
}

func (b *served) evidence(ctx context.Context, parent session, _ []trajectory.Step, t int, cost *EvidenceCost) (*evidence.Result, error) {
	p := parent.(*servedSession)
	at := b.k + t
	for {
		res, err := b.c.Evidence(ctx, p.id, api.EvidenceRequest{T: &at})
		var ae *api.APIError
		if errors.As(err, &ae) && ae.Code == api.CodeRateLimited {
			if werr := wait(ctx, time.Duration(max(ae.RetryAfter, 1))*time.Second); werr != nil {
				return nil, werr
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		cost.Calls++
		cost.StepsReplayed += res.Cost.StepsReplayed
		cost.MS += res.Cost.TotalMS
		return &evidence.Result{Rubric: res.Rubric, Score: res.Score, Cost: evidence.Cost(res.Cost)}, nil
	}
}

func wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (s *servedSession) do(ctx context.Context, a trajectory.Step, intervened bool) (trajectory.Observation, error) {
	args, err := tools.Arguments(actionOf(a))
	if err != nil {
		return trajectory.Observation{}, err
	}
	res, err := s.c.Step(ctx, s.id, api.StepRequest{ToolCall: &api.ToolCall{Name: string(a.Action), Arguments: args},
		Intervened: intervened, Tokens: a.Tokens})
	if err != nil {
		return trajectory.Observation{}, err
	}
	obs := res.Observation
	if res.Truncated && !res.Terminated {
		return obs, errTurnOver // the step counts; the episode has no more
	}
	return obs, nil
}

func (s *servedSession) verify(ctx context.Context) (bool, error) {
	res, err := s.c.Evaluate(ctx, s.id)
	if err != nil {
		return false, err
	}
	s.done = true
	return res.Success, nil
}

// release closes an episode that was not evaluated.
func (s *servedSession) release() {
	if s.done {
		return
	}
	s.done = true
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = s.c.Close(ctx, s.id) // best effort: the server expires what it cannot close
}
