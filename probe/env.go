package probe

import (
	"context"
	"errors"

	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/verifier"
)

// Env opens the episodes rollouts act in: sandboxes of a local resetter
// (New), or a running rbx serve's (package probe/remote, with NewOn).
type Env interface {
	// Open resets an episode of tk to checkpoint k of traj.
	Open(ctx context.Context, tk *task.Task, traj *trajectory.Trajectory, k int) (Episode, error)
}

// Episode is one rollout's environment.
type Episode interface {
	// Do runs the agent's n-th action. An action that fails as an action
	// (edit target absent, undefined variable, a malformed call) is an
	// observation for the agent, not an error; ErrEpisodeOver ends the
	// acting part of the episode.
	Do(ctx context.Context, n int, s trajectory.Step) (*trajectory.Observation, error)
	// Verify runs the task's verifier on the state reached.
	Verify(ctx context.Context) (passed bool, err error)
	// Close releases the episode (after Verify, or instead of it).
	Close()
}

// ErrEpisodeOver is returned by Episode.Do when the environment ended the
// episode (a server's step limit or episode timeout): the agent acts no
// more and Verify gives the verdict.
var ErrEpisodeOver = errors.New("the environment ended the episode")

// localEnv resets sandboxes with a Resetter and verifies them in process.
type localEnv struct{ rs Resetter }

func (e localEnv) Open(ctx context.Context, tk *task.Task, traj *trajectory.Trajectory, k int) (Episode, error) {
	ep, err := e.rs.Reset(ctx, tk, traj, k)
	if err != nil {
		return nil, err
	}
	return &localEpisode{rs: e.rs, ep: ep, tk: tk}, nil
}

type localEpisode struct {
	rs Resetter
	ep *reset.Episode
	tk *task.Task
}

func (l *localEpisode) Do(ctx context.Context, n int, s trajectory.Step) (*trajectory.Observation, error) {
	return do(ctx, l.ep, n, s)
}

func (l *localEpisode) Verify(ctx context.Context) (bool, error) {
	vctx, cancel := context.WithTimeout(ctx, l.tk.VerifyTimeout())
	defer cancel()
	v, err := verifier.Run(vctx, l.ep.Sandbox, l.tk)
	if err != nil {
		return false, err
	}
	return v.Passed, nil
}

func (l *localEpisode) Close() { l.rs.Release(l.ep.Sandbox) }
