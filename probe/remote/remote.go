// Package remote runs probe rollouts through a running rbx serve: its
// warm pool resets each episode to the explicit checkpoint k of the
// reference it serves, the policy's actions go through its step route, and
// its verifier judges. Episodes at an explicit k do not feed the server's
// curriculum (the reset's feed_curriculum stays off), so a probe leaves
// the training it observes undisturbed.
package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"strconv"
	"time"

	"github.com/rbx-sandbox/rbx/probe"
	"github.com/rbx-sandbox/rbx/server/api"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/trajectory/tools"
)

// Client is what a remote probe needs of server/client.Client.
type Client interface {
	Reset(ctx context.Context, req api.ResetRequest) (*api.ResetResponse, error)
	Step(ctx context.Context, episode string, req api.StepRequest) (*api.StepResponse, error)
	Evaluate(ctx context.Context, episode string) (*api.EvaluateResponse, error)
	Close(ctx context.Context, episode string) error
}

// Env opens probe episodes on a server.
type Env struct {
	c Client
	// wait is the longest pause before retrying a reset the server refused
	// for its --max-episodes.
	wait time.Duration
}

var _ probe.Env = (*Env)(nil)

// New returns an Env on the server c talks to.
func New(c Client) *Env { return &Env{c: c, wait: 5 * time.Second} }

// Open resets one episode of tk at k: the server's reference must be traj
// (the caller fetched it from the server). A reset refused because the
// server's episodes are all in use is retried after its Retry-After.
func (e *Env) Open(ctx context.Context, tk *task.Task, traj *trajectory.Trajectory, k int) (probe.Episode, error) {
	req := api.ResetRequest{Task: tk.ID, Checkpoint: json.RawMessage(strconv.Itoa(k)), Group: 1}
	for {
		resp, err := e.c.Reset(ctx, req)
		var ae *api.APIError
		if errors.As(err, &ae) && ae.Code == api.CodeTooManyEpisodes {
			pause := min(time.Duration(max(ae.RetryAfter, 1))*time.Second, e.wait)
			select {
			case <-ctx.Done():
				return nil, fmt.Errorf("reset %s at k=%d: %w", tk.ID, k, ctx.Err())
			case <-time.After(pause):
				continue
			}
		}
		if err != nil {
			return nil, fmt.Errorf("reset %s at k=%d on the server: %w", tk.ID, k, err)
		}
		if len(resp.Episodes) != 1 || resp.K != k || resp.T != traj.Len() {
			return nil, fmt.Errorf("reset %s at k=%d: the server answered %d episode(s) at k=%d of T=%d (the reference has T=%d)",
				tk.ID, k, len(resp.Episodes), resp.K, resp.T, traj.Len())
		}
		return &episode{c: e.c, id: resp.Episodes[0].ID}, nil
	}
}

// episode is one served episode.
type episode struct {
	c         Client
	id        string
	truncated string // why the server ended the episode's acting part
	evaluated bool   // Verify closed it on the server
}

func (ep *episode) Do(ctx context.Context, n int, s trajectory.Step) (*trajectory.Observation, error) {
	args, err := tools.Arguments(s)
	if err != nil {
		return &trajectory.Observation{Error: err.Error()}, nil
	}
	call := api.ToolCall{Name: string(s.Action), Arguments: args}
	sr, err := ep.c.Step(ctx, ep.id, api.StepRequest{ToolCall: &call})
	var ae *api.APIError
	switch {
	case errors.As(err, &ae) && ae.Code == api.CodeBadToolCall:
		return &trajectory.Observation{Error: ae.Message}, nil // the agent's mistake: it sees why
	case errors.As(err, &ae) && (ae.Code == api.CodeStepLimit || ae.Code == api.CodeEpisodeFinished):
		ep.truncated = ae.Code
		return nil, fmt.Errorf("step %d of %s: %w (%s)", n, ep.id, probe.ErrEpisodeOver, ae.Code)
	case err != nil:
		return nil, fmt.Errorf("step %d of %s: %w", n, ep.id, err)
	}
	obs := sr.Observation
	if sr.Terminated {
		obs.SessionLost = true
	}
	if sr.Truncated {
		ep.truncated = sr.Info.Truncation
		return &obs, fmt.Errorf("step %d of %s: %w (%s)", n, ep.id, probe.ErrEpisodeOver, sr.Info.Truncation)
	}
	return &obs, nil
}

// Verify evaluates the episode on the server. An episode the server ended
// at its episode_timeout has no state left to verify: a failure.
func (ep *episode) Verify(ctx context.Context) (bool, error) {
	er, err := ep.c.Evaluate(ctx, ep.id)
	var ae *api.APIError
	if errors.As(err, &ae) && ae.Code == api.CodeEpisodeFinished && ep.truncated == api.TruncEpisodeTimeout {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("evaluate %s: %w", ep.id, err)
	}
	ep.evaluated = true
	if er.Observed {
		// The server fed the curriculum: a contract of the reset broke.
		return er.Success, fmt.Errorf("evaluate %s: the server counted a probe episode for its curriculum", ep.id)
	}
	return er.Success, nil
}

// Close releases an episode Verify did not finish (evaluating closes it).
func (ep *episode) Close() {
	if ep.evaluated {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = ep.c.Close(ctx, ep.id)
}
