package rollout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/rbx-sandbox/rbx/evidence"
	"github.com/rbx-sandbox/rbx/server/api"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Client is what Served needs of an rbx serve (server/client.Client).
type Client interface {
	Reset(ctx context.Context, req api.ResetRequest) (*api.ResetResponse, error)
	Step(ctx context.Context, episode string, req api.StepRequest) (*api.StepResponse, error)
	Evaluate(ctx context.Context, episode string) (*api.EvaluateResponse, error)
	Fork(ctx context.Context, episode string, req api.ForkRequest) (*api.ForkResponse, error)
	Evidence(ctx context.Context, episode string, req api.EvidenceRequest) (*api.EvidenceResponse, error)
	Close(ctx context.Context, episode string) error
}

// Served runs episodes on a running rbx serve: its warm pool resets each
// episode to the explicit checkpoint k of the reference it serves, the
// actions go through its step route and its verifier judges; a fork is
// its fork route (the server replays the inherited actions), evidence its
// evidence route. Episodes at an explicit k do not feed the server's
// curriculum (the reset's feed_curriculum stays off), so rollouts leave
// the training they observe undisturbed. What the server does not expose
// (step limit, episode timeout, verifier) it applies itself.
type Served struct {
	c Client
	// wait is the longest pause before retrying a reset the server refused
	// for its --max-episodes.
	wait time.Duration
}

var (
	_ Env       = (*Served)(nil)
	_ Forker    = (*Served)(nil)
	_ Evidencer = (*Served)(nil)
)

// NewServed returns an Env on the server c talks to.
func NewServed(c Client) *Served { return &Served{c: c, wait: 5 * time.Second} }

// Open resets one episode of tk at k: the server's reference must be traj
// (the caller has the one it serves). A reset refused because the
// server's episodes are all in use is retried after its Retry-After.
func (s *Served) Open(ctx context.Context, tk *task.Task, traj *trajectory.Trajectory, k int) (Episode, error) {
	req := api.ResetRequest{Task: tk.ID, Checkpoint: json.RawMessage(strconv.Itoa(k))}
	for {
		resp, err := s.c.Reset(ctx, req)
		var ae *api.APIError
		if errors.As(err, &ae) && ae.Code == api.CodeTooManyEpisodes {
			if err := sleep(ctx, min(time.Duration(max(ae.RetryAfter, 1))*time.Second, s.wait)); err != nil {
				return nil, fmt.Errorf("reset %s at k=%d: %w", tk.ID, k, err)
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reset %s at k=%d on the server: %w", tk.ID, k, err)
		}
		if len(resp.Episodes) != 1 || resp.K != k || resp.T != traj.Len() {
			return nil, fmt.Errorf("reset %s at k=%d: the server answered %d episode(s) at k=%d of T=%d (the reference has T=%d)",
				tk.ID, k, len(resp.Episodes), resp.K, resp.T, traj.Len())
		}
		return &servedEpisode{c: s.c, id: resp.Episodes[0].ID, k: k}, nil
	}
}

// Fork asks the server for a fork of parent at step k+t; the inherited
// actions keep the parent's observations (the server's replay of them is
// in the fork's messages).
func (s *Served) Fork(ctx context.Context, parent Episode, acts []trajectory.Step, t int) (Episode, []trajectory.Step, error) {
	p, ok := parent.(*servedEpisode)
	if !ok {
		return nil, nil, fmt.Errorf("fork: %T is not an episode of a served environment", parent)
	}
	at := p.k + t
	res, err := s.c.Fork(ctx, p.id, api.ForkRequest{T: &at})
	if err != nil {
		return nil, nil, fmt.Errorf("fork %s at step %d: %w", p.id, at, err)
	}
	return &servedEpisode{c: s.c, id: res.Episode.ID, k: p.k}, append([]trajectory.Step(nil), acts[:t]...), nil
}

// Evidence asks the server's evidence route, waiting out its rate limit.
// The server does not memoise: memoised is always false.
func (s *Served) Evidence(ctx context.Context, parent Episode, _ []trajectory.Step, t int) (*evidence.Result, bool, error) {
	p, ok := parent.(*servedEpisode)
	if !ok {
		return nil, false, fmt.Errorf("evidence: %T is not an episode of a served environment", parent)
	}
	at := p.k + t
	for {
		res, err := s.c.Evidence(ctx, p.id, api.EvidenceRequest{T: &at})
		var ae *api.APIError
		if errors.As(err, &ae) && ae.Code == api.CodeRateLimited {
			if err := sleep(ctx, time.Duration(max(ae.RetryAfter, 1))*time.Second); err != nil {
				return nil, false, err
			}
			continue
		}
		if err != nil {
			return nil, false, err
		}
		return &evidence.Result{Rubric: res.Rubric, Score: res.Score, Cost: evidence.Cost(res.Cost)}, false, nil
	}
}

// sleep pauses for d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
