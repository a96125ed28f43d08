package rollout_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/rollout"
	"github.com/rbx-sandbox/rbx/server/api"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// fake answers as a server would, from canned errors and responses.
type fake struct {
	refusals int // resets refused with too_many_episodes before one succeeds
	resets   []api.ResetRequest
	step     func() (*api.StepResponse, error)
	steps    []api.StepRequest
	eval     *api.EvaluateResponse
	evalErr  error
	closed   []string
	forks    []int // each fork's T
	limited  int   // evidence calls refused with rate_limited before one succeeds
	evidence []int // each evidence call's T
}

func (f *fake) Reset(_ context.Context, req api.ResetRequest) (*api.ResetResponse, error) {
	f.resets = append(f.resets, req)
	if f.refusals > 0 {
		f.refusals--
		return nil, &api.APIError{Status: 429, Code: api.CodeTooManyEpisodes, RetryAfter: 1}
	}
	return &api.ResetResponse{K: 1, T: 2, Episodes: []api.EpisodeInfo{{ID: "ep_1"}}}, nil
}

func (f *fake) Step(_ context.Context, _ string, req api.StepRequest) (*api.StepResponse, error) {
	f.steps = append(f.steps, req)
	return f.step()
}

func (f *fake) Evaluate(context.Context, string) (*api.EvaluateResponse, error) {
	return f.eval, f.evalErr
}

func (f *fake) Close(_ context.Context, id string) error {
	f.closed = append(f.closed, id)
	return nil
}

func (f *fake) Fork(_ context.Context, _ string, req api.ForkRequest) (*api.ForkResponse, error) {
	f.forks = append(f.forks, *req.T)
	return &api.ForkResponse{Episode: api.EpisodeInfo{ID: "ep_2"}}, nil
}

func (f *fake) Evidence(_ context.Context, _ string, req api.EvidenceRequest) (*api.EvidenceResponse, error) {
	f.evidence = append(f.evidence, *req.T)
	if f.limited > 0 {
		f.limited--
		return nil, &api.APIError{Status: 429, Code: api.CodeRateLimited, RetryAfter: 1}
	}
	return &api.EvidenceResponse{Score: 0.5, Cost: api.EvidenceCost{StepsReplayed: 3, TotalMS: 20}}, nil
}

var (
	tk   = &task.Task{ID: "t"}
	traj = &trajectory.Trajectory{ID: "r", Steps: []trajectory.Step{{Action: trajectory.KindShell, Command: "true"}, {Action: trajectory.KindShell, Command: "true"}}}
)

func TestOpenAtExplicitKWithoutFeedingTheCurriculum(t *testing.T) {
	f := &fake{refusals: 1}
	ep, err := rollout.NewServed(f).Open(context.Background(), tk, traj, 1)
	require.NoError(t, err)
	require.Len(t, f.resets, 2, "the refused reset was retried")
	assert.JSONEq(t, "1", string(f.resets[1].Checkpoint))
	assert.False(t, f.resets[1].FeedCurriculum)
	ep.Close()
	assert.Equal(t, []string{"ep_1"}, f.closed, "an episode not evaluated is closed")

	_, err = rollout.NewServed(f).Open(context.Background(), tk, traj, 0)
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
		ran     bool // an observation comes back with ErrEpisodeOver
	}{
		{"observation", &api.StepResponse{Observation: trajectory.Observation{Output: "hi", ExitCode: &exit0}}, nil, false, "", false, true},
		{"session lost", &api.StepResponse{Terminated: true}, nil, false, "", true, true},
		{"step limit", &api.StepResponse{Truncated: true, Info: api.StepInfo{Truncation: api.TruncStepLimit}}, nil, true, "", false, true},
		{"bad tool call is the agent's", nil, &api.APIError{Status: 400, Code: api.CodeBadToolCall, Message: "no tool rm"}, false, "no tool rm", false, true},
		{"finished", nil, &api.APIError{Status: 409, Code: api.CodeEpisodeFinished}, true, "", false, false},
		{"step refused at the limit", nil, &api.APIError{Status: 409, Code: api.CodeStepLimit}, true, "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fake{step: func() (*api.StepResponse, error) { return tt.resp, tt.err }}
			ep, err := rollout.NewServed(f).Open(context.Background(), tk, traj, 1)
			require.NoError(t, err)
			obs, err := ep.Do(context.Background(), traj.Steps[1], false)
			assert.Equal(t, tt.over, errors.Is(err, rollout.ErrEpisodeOver), "%v", err)
			assert.Equal(t, tt.ran, obs != nil, "an observation means the action ran")
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
	ep, err := rollout.NewServed(f).Open(context.Background(), tk, traj, 1)
	require.NoError(t, err)
	ok, err := ep.Verify(context.Background())
	require.NoError(t, err)
	assert.True(t, ok)
	ep.Close()
	assert.Empty(t, f.closed, "evaluating closed it")

	f.eval = &api.EvaluateResponse{Success: true, Observed: true}
	ep, err = rollout.NewServed(f).Open(context.Background(), tk, traj, 1)
	require.NoError(t, err)
	_, err = ep.Verify(context.Background())
	assert.ErrorContains(t, err, "counted an episode at an explicit k for its curriculum")

	// Ended at the episode timeout: no state to verify, a failure.
	f.step = func() (*api.StepResponse, error) {
		return &api.StepResponse{Truncated: true, Info: api.StepInfo{Truncation: api.TruncEpisodeTimeout}}, nil
	}
	f.eval, f.evalErr = nil, &api.APIError{Status: 409, Code: api.CodeEpisodeFinished}
	ep, err = rollout.NewServed(f).Open(context.Background(), tk, traj, 1)
	require.NoError(t, err)
	_, err = ep.Do(context.Background(), traj.Steps[1], false)
	require.ErrorIs(t, err, rollout.ErrEpisodeOver)
	ok, err = ep.Verify(context.Background())
	require.NoError(t, err)
	assert.False(t, ok)
}

func TestStepSendsTheIntervenedFlagAndTokens(t *testing.T) {
	f := &fake{step: func() (*api.StepResponse, error) { return &api.StepResponse{}, nil }}
	ep, err := rollout.NewServed(f).Open(context.Background(), tk, traj, 1)
	require.NoError(t, err)
	a := traj.Steps[1]
	a.Tokens = 7
	_, err = ep.Do(context.Background(), a, true)
	require.NoError(t, err)
	require.Len(t, f.steps, 1)
	assert.True(t, f.steps[0].Intervened)
	assert.Equal(t, 7, f.steps[0].Tokens)
	assert.Equal(t, "shell", f.steps[0].ToolCall.Name)
	assert.JSONEq(t, `{"command": "true"}`, string(f.steps[0].ToolCall.Arguments))
}

func TestCloseIsIdempotent(t *testing.T) {
	f := &fake{}
	ep, err := rollout.NewServed(f).Open(context.Background(), tk, traj, 1)
	require.NoError(t, err)
	ep.Close()
	ep.Close()
	assert.Equal(t, []string{"ep_1"}, f.closed)
}

// TestForkAndEvidence: both address the parent's state after t of its
// actions as step k+t, counted from the reference's start as the server
// does; evidence waits out the server's rate limit.
func TestForkAndEvidence(t *testing.T) {
	f := &fake{limited: 1}
	env := rollout.NewServed(f)
	parent, err := env.Open(context.Background(), tk, traj, 1)
	require.NoError(t, err)
	acts := []trajectory.Step{{Action: trajectory.KindShell, Command: "a"}, {Action: trajectory.KindShell, Command: "b"}}

	child, inherited, err := env.Fork(context.Background(), parent, acts, 1)
	require.NoError(t, err)
	assert.Equal(t, []int{2}, f.forks)
	assert.Equal(t, acts[:1], inherited, "the parent's actions, as it observed them")
	inherited[0].Command = "changed"
	assert.Equal(t, "a", acts[0].Command, "a copy")
	child.Close()
	assert.Equal(t, []string{"ep_2"}, f.closed)

	res, memoised, err := env.Evidence(context.Background(), parent, acts, 2)
	require.NoError(t, err)
	assert.False(t, memoised)
	assert.Equal(t, []int{3, 3}, f.evidence, "refused once, asked again")
	assert.Equal(t, 0.5, res.Score)
	assert.Equal(t, 3, res.Cost.StepsReplayed)
	assert.Equal(t, 20.0, res.Cost.TotalMS)
}
