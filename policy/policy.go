// Package policy declares what acts in a probe episode (docs/probe.md): a
// Policy starts one Agent per episode, and the Agent turns each observation
// into the next action until it is done. The implementations are expert
// (the reference suffix), noisy (the reference with actions corrupted at
// known steps), openai (a chat-completions agent loop) and cmd (an external
// program speaking JSON lines).
package policy

import (
	"context"

	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Episode is what a policy is told when an episode starts: the sandbox is at
// checkpoint K of Trajectory, a reference solution of Task.
type Episode struct {
	Task       *task.Task
	Trajectory *trajectory.Trajectory
	K          int
	// Seed makes a stochastic policy reproducible per rollout.
	Seed uint64
	// Actions are the episode's actions after K so far, each with its
	// observation, when the agent takes over an episode under way (an
	// intervener after a fork, the policy again after an intervention);
	// the agent continues after them.
	Actions []trajectory.Step
	// Intervention is set when the agent acts as an intervener
	// (rollout-time intervention, docs/rti.md): the reward-side evidence
	// it may use and its step budget. The policy itself never gets it.
	Intervention *Intervention
}

// Next is the index in Trajectory of the step the episode is at: K plus
// the actions taken so far.
func (ep Episode) Next() int { return ep.K + len(ep.Actions) }

// Policy starts agents. Implementations are safe for concurrent use: one
// Start per episode, from many goroutines.
type Policy interface {
	// Name is the policy's name as printed in reports.
	Name() string
	// Start begins an episode.
	Start(ctx context.Context, ep Episode) (Agent, error)
}

// Agent acts in one episode; it is used by one goroutine.
type Agent interface {
	// Act returns the next action given the observation of the previous one
	// (nil on the first call). done ends the episode; the action is then
	// ignored.
	Act(ctx context.Context, obs *trajectory.Observation) (action trajectory.Step, done bool, err error)
	// Close releases what the agent holds (an external process).
	Close() error
}

// Expert replays the reference suffix [K, T): every valid checkpoint must
// then pass the verifier, which makes it a validity check of the
// checkpoints themselves.
type Expert struct{}

// Name returns "expert".
func (Expert) Name() string { return "expert" }

// Start returns an agent that plays the reference steps from K plus the
// actions already taken: after a fork the expert assumes those followed
// the reference step for step (as expert and noisy rollouts do).
func (Expert) Start(_ context.Context, ep Episode) (Agent, error) {
	return &suffix{steps: ep.Trajectory.Steps, next: ep.Next()}, nil
}

// suffix plays reference steps, optionally transformed.
type suffix struct {
	steps []trajectory.Step
	next  int
	alter func(i int, s trajectory.Step) trajectory.Step
}

func (a *suffix) Act(context.Context, *trajectory.Observation) (trajectory.Step, bool, error) {
	if a.next >= len(a.steps) {
		return trajectory.Step{}, true, nil
	}
	i := a.next
	a.next++
	s := a.steps[i]
	if a.alter != nil {
		s = a.alter(i, s)
	}
	return s, false, nil
}

func (a *suffix) Close() error { return nil }
