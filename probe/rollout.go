package probe

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rbx-sandbox/rbx/policy"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/rollout"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// outcome is one rollout's verdict.
type outcome struct {
	success bool
	steps   int
	err     error // no verdict: reset, sandbox or policy failure
	done    bool  // the rollout ran to its end (not interrupted)
}

// rollout resets a sandbox to k, lets a fresh agent act until it is done,
// the step limit or the episode timeout, and runs the verifier on the
// state reached.
func (p *Prober) rollout(ctx context.Context, tk *task.Task, traj *trajectory.Trajectory, k, r int) outcome {
	env, err := p.env.Open(ctx, tk, traj, k)
	if err != nil {
		return outcome{err: err}
	}
	defer env.Close()
	ep := policy.Episode{Task: tk, Trajectory: traj, K: k, Seed: p.cfg.RolloutSeed(r)}
	agent, err := p.pol.Start(ctx, ep)
	if err != nil {
		return outcome{err: fmt.Errorf("start %s policy: %w", p.pol.Name(), err)}
	}
	defer agent.Close()
	steps, err := p.act(ctx, agent, env, p.cfg.Timeout(tk), p.cfg.StepLimit(traj.Len()-k))
	if errors.Is(err, errSessionLost) {
		// The policy's action ended the shell: a failed rollout, the
		// policy's doing (never retried as infrastructure, never verified on a
		// state whose shell is gone).
		return outcome{steps: steps}
	}
	if err != nil {
		return outcome{steps: steps, err: err}
	}
	passed, err := env.Verify(ctx)
	if err != nil {
		return outcome{steps: steps, err: err}
	}
	return outcome{success: passed, steps: steps}
}

// errSessionLost ends a rollout whose action ended the session shell.
var errSessionLost = errors.New("the action ended the session shell")

// act runs the agent loop for at most limit actions and timeout (which
// bounds the agent's thinking too). Running out of steps or time ends the
// episode normally: the verifier judges what was reached.
func (p *Prober) act(ctx context.Context, agent policy.Agent, ep rollout.Episode, timeout time.Duration, limit int) (int, error) {
	ectx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var obs *trajectory.Observation
	for steps := 0; steps < limit; steps++ {
		action, done, err := agent.Act(ectx, obs)
		if expired(ctx, ectx, err) {
			return steps, nil
		}
		if err != nil {
			return steps, fmt.Errorf("policy: %w", err)
		}
		if done {
			return steps, nil
		}
		if obs, err = ep.Do(ectx, action, false); expired(ctx, ectx, err) || errors.Is(err, rollout.ErrEpisodeOver) {
			return steps + 1, nil
		} else if err != nil {
			return steps + 1, fmt.Errorf("step %d of the episode (%s): %w", steps, replayer.Summary(action), err)
		}
		if obs.SessionLost {
			return steps + 1, errSessionLost
		}
	}
	return limit, nil
}

// expired reports that the episode's own deadline, not the caller's, ended
// the call.
func expired(parent, episode context.Context, err error) bool {
	return err != nil && parent.Err() == nil && episode.Err() != nil &&
		(errors.Is(err, context.DeadlineExceeded) || errors.Is(episode.Err(), context.DeadlineExceeded))
}

// sinceMs is for logs.
func sinceMs(t time.Time) int64 { return time.Since(t).Milliseconds() }
