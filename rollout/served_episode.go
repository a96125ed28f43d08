package rollout

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rbx-sandbox/rbx/server/api"
	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/trajectory/tools"
)

// servedEpisode is one episode of a Served.
type servedEpisode struct {
	c         Client
	id        string
	k         int
	truncated string // why the server ended the episode's acting part
	done      bool   // evaluated (which closes it on the server) or closed
}

// Do sends the action to the server's step route.
func (e *servedEpisode) Do(ctx context.Context, a trajectory.Step, intervened bool) (*trajectory.Observation, error) {
	args, err := tools.Arguments(a)
	if err != nil {
		return &trajectory.Observation{Error: err.Error()}, nil
	}
	call := api.ToolCall{Name: string(a.Action), Arguments: args}
	sr, err := e.c.Step(ctx, e.id, api.StepRequest{ToolCall: &call, Intervened: intervened, Tokens: a.Tokens})
	var ae *api.APIError
	switch {
	case errors.As(err, &ae) && ae.Code == api.CodeBadToolCall:
		return &trajectory.Observation{Error: ae.Message}, nil // the agent's mistake: it sees why
	case errors.As(err, &ae) && (ae.Code == api.CodeStepLimit || ae.Code == api.CodeEpisodeFinished):
		e.truncated = ae.Code
		return nil, fmt.Errorf("step in %s: %w (%s)", e.id, ErrEpisodeOver, ae.Code)
	case err != nil:
		return nil, fmt.Errorf("step in %s: %w", e.id, err)
	}
	obs := sr.Observation
	if sr.Terminated {
		obs.SessionLost = true
	}
	if sr.Truncated {
		e.truncated = sr.Info.Truncation
		return &obs, fmt.Errorf("step in %s: %w (%s)", e.id, ErrEpisodeOver, sr.Info.Truncation)
	}
	return &obs, nil
}

// Verify evaluates the episode on the server. An episode the server ended
// at its episode_timeout has no state left to verify: a failure.
func (e *servedEpisode) Verify(ctx context.Context) (bool, error) {
	er, err := e.c.Evaluate(ctx, e.id)
	var ae *api.APIError
	if errors.As(err, &ae) && ae.Code == api.CodeEpisodeFinished && e.truncated == api.TruncEpisodeTimeout {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("evaluate %s: %w", e.id, err)
	}
	e.done = true
	if er.Observed {
		// The server fed the curriculum: a contract of the reset broke.
		return er.Success, fmt.Errorf("evaluate %s: the server counted an episode at an explicit k for its curriculum", e.id)
	}
	return er.Success, nil
}

// Close closes an episode Verify did not finish (evaluating closes it),
// best effort: the server expires what it cannot close.
func (e *servedEpisode) Close() {
	if e.done {
		return
	}
	e.done = true
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = e.c.Close(ctx, e.id)
}
