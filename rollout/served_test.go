package remote_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/probe"
	"github.com/rbx-sandbox/rbx/probe/remote"
	"github.com/rbx-sandbox/rbx/server/api"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// fake answers as a server would, from canned errors and responses.
type fake struct {
	refusals int // resets refused with too_many_episodes before one succeeds
	resets   []api.ResetRequest
	step     func() (*api.StepResponse, error)
	eval     *api.EvaluateResponse
	evalErr  error
	closed   []string
}

func (f *fake) Reset(_ context.Context, req api.ResetRequest) (*api.ResetResponse, error) {
	f.resets = append(f.resets, req)
	if f.refusals > 0 {
		f.refusals--
		return nil, &api.APIError{Status: 429, Code: api.CodeTooManyEpisodes, RetryAfter: 1}
	}
	return &api.ResetResponse{K: 1, T: 2, Episodes: []api.EpisodeInfo{{ID: "ep_1"}}}, nil
}

func (f *fake) Step(context.Context, string, api.StepRequest) (*api.StepResponse, error) {
	return f.step()
}

func (f *fake) Evaluate(context.Context, string) (*api.EvaluateResponse, error) {
	return f.eval, f.evalErr
}

func (f *fake) Close(_ context.Context, id string) error {
	f.closed = append(f.closed, id)
	return nil
}

var (
	tk   = &task.Task{ID: "t"}
	traj = &trajectory.Trajectory{ID: "r", Steps: []trajectory.Step{{Action: trajectory.KindShell, Command: "true"}, {Action: trajectory.KindShell, Command: "true"}}}
)

func TestOpenAtExplicitKWithoutFeedingTheCurriculum(t *testing.T) {
	f := &fake{refusals: 1}
	ep, err := remote.New(f).Open(context.Background(), tk, traj, 1)
	require.NoError(t, err)
	require.Len(t, f.resets, 2, "the refused reset was retried")
	assert.JSONEq(t, "1", string(f.resets[1].Checkpoint))
	assert.False(t, f.resets[1].FeedCurriculum)
	ep.Close()
	assert.Equal(t, []string{"ep_1"}, f.closed, "an episode not evaluated is closed")

	_, err = remote.New(f).Open(context.Background(), tk, traj, 0)
	assert.ErrorContains(t, err, "answered 1 episode(s) at k=1", "the server's k must be the one asked for")
}

func TestStep(t *testing.T) {
	exit0 := 0
	tests := []struct {
		name    string
		resp    *api.StepResponse
		err     error
		over    bool
		obsErr  string
		session bool
	}{
		{"observation", &api.StepResponse{Observation: trajectory.Observation{Output: "hi", ExitCode: &exit0}}, nil, false, "", false},
		{"session lost", &api.StepResponse{Terminated: true}, nil, false, "", true},
		{"step limit", &api.StepResponse{Truncated: true, Info: api.StepInfo{Truncation: api.TruncStepLimit}}, nil, true, "", false},
		{"bad tool call is the agent's", nil, &api.APIError{Status: 400, Code: api.CodeBadToolCall, Message: "no tool rm"}, false, "no tool rm", false},
		{"finished", nil, &api.APIError{Status: 409, Code: api.CodeEpisodeFinished}, true, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fake{step: func() (*api.StepResponse, error) { return tt.resp, tt.err }}
			ep, err := remote.New(f).Open(context.Background(), tk, traj, 1)
			require.NoError(t, err)
			obs, err := ep.Do(context.Background(), 0, traj.Steps[1])
			assert.Equal(t, tt.over, errors.Is(err, probe.ErrEpisodeOver), "%v", err)
			if !tt.over {
				require.NoError(t, err)
				assert.Equal(t, tt.obsErr, obs.Error)
				assert.Equal(t, tt.session, obs.SessionLost)
			}
		})
	}
}

func TestVerify(t *testing.T) {
	f := &fake{eval: &api.EvaluateResponse{Success: true}}
	ep, err := remote.New(f).Open(context.Background(), tk, traj, 1)
	require.NoError(t, err)
	ok, err := ep.Verify(context.Background())
	require.NoError(t, err)
	assert.True(t, ok)
	ep.Close()
	assert.Empty(t, f.closed, "evaluating closed it")

	f.eval = &api.EvaluateResponse{Success: true, Observed: true}
	ep, err = remote.New(f).Open(context.Background(), tk, traj, 1)
	require.NoError(t, err)
	_, err = ep.Verify(context.Background())
	assert.ErrorContains(t, err, "counted a probe episode for its curriculum")

	// Ended at the episode timeout: no state to verify, a failure.
	f.step = func() (*api.StepResponse, error) {
		return &api.StepResponse{Truncated: true, Info: api.StepInfo{Truncation: api.TruncEpisodeTimeout}}, nil
	}
	f.eval, f.evalErr = nil, &api.APIError{Status: 409, Code: api.CodeEpisodeFinished}
	ep, err = remote.New(f).Open(context.Background(), tk, traj, 1)
	require.NoError(t, err)
	_, err = ep.Do(context.Background(), 0, traj.Steps[1])
	require.ErrorIs(t, err, probe.ErrEpisodeOver)
	ok, err = ep.Verify(context.Background())
	require.NoError(t, err)
	assert.False(t, ok)
}
