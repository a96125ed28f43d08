// Package rollout is the environment rollouts act in, local or served:
// an Env opens an Episode at checkpoint k of a task's reference
// trajectory, the agent's actions run in it one by one, and the task's
// verifier judges the state reached. Local runs episodes in process on a
// resetter; Served runs them on a running rbx serve through its client.
// Both can also fork an episode (Forker) and score the rubric at states it
// went through (Evidencer), which rollout-time intervention needs and a
// probe does not. Settings are the parameters every runner of rollouts
// (probe, intervene) shares, with their options.
package rollout

import (
	"context"
	"errors"

	"github.com/rbx-sandbox/rbx/evidence"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Env opens the episodes rollouts act in.
type Env interface {
	// Open resets an episode of tk to checkpoint k of traj.
	Open(ctx context.Context, tk *task.Task, traj *trajectory.Trajectory, k int) (Episode, error)
}

// Episode is one rollout's environment. It is used by one goroutine at a
// time.
type Episode interface {
	// Do carries out action a; intervened marks an action an intervener
	// chose (a probe passes false). An action that fails as an action
	// (edit target absent, undefined variable, a malformed call) is an
	// observation for the agent, not an error; errors are the
	// infrastructure's, or ErrEpisodeOver. With ErrEpisodeOver a non-nil
	// observation means the action ran (and counts) before the end cut
	// it; nil means it was refused.
	Do(ctx context.Context, a trajectory.Step, intervened bool) (*trajectory.Observation, error)
	// Verify runs the task's verifier on the state reached.
	Verify(ctx context.Context) (passed bool, err error)
	// Close releases the episode (after Verify, or instead of it); calling
	// it again does nothing.
	Close()
}

// ErrEpisodeOver is returned by Episode.Do when the environment ended the
// episode (its step limit or episode timeout): the agent acts no more and
// Verify gives the verdict.
var ErrEpisodeOver = errors.New("the environment ended the episode")

// Forker is an Env that can continue an episode in another.
type Forker interface {
	// Fork opens an episode continuing parent (one of this Env's) after
	// its first t actions; acts are parent's actions after its checkpoint.
	// It returns those t actions as the fork observed them.
	Fork(ctx context.Context, parent Episode, acts []trajectory.Step, t int) (Episode, []trajectory.Step, error)
}

// Evidencer is an Env that can score the task's rubric at the states an
// episode went through, without touching any live sandbox.
type Evidencer interface {
	// Evidence scores the rubric at the state after parent's first t
	// actions (acts, after its checkpoint). Memoised reports that this Env
	// had scored the same state already: res is that scoring, its cost
	// paid then.
	Evidence(ctx context.Context, parent Episode, acts []trajectory.Step, t int) (res *evidence.Result, memoised bool, err error)
}
