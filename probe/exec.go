package probe

import (
	"context"
	"errors"
	"fmt"

	"github.com/rbx-sandbox/rbx/policy"
	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// executor carries out an agent's actions in a sandbox through the
// replayer, one step at a time, without comparing against any recording:
// what counts in a probe is the verifier's verdict at the end. Variables
// bound by http captures carry over from the reset and between steps.
type executor struct {
	rp   *replayer.Replayer
	sb   sandbox.Sandbox
	tk   *task.Task
	vars map[string]string
	n    int
}

// do executes one action. An action that fails as an action (edit target
// absent, 404, undefined variable) is an observation for the agent; only a
// failure of the sandbox or engine is returned as an error.
func (e *executor) do(ctx context.Context, s trajectory.Step) (*policy.Observation, error) {
	s.Observation, s.Checkpoint = nil, nil
	tr := &trajectory.Trajectory{ID: "probe", Task: e.tk.ID, Steps: []trajectory.Step{s}}
	run := e.rp.Resume(e.sb, e.tk, tr, 0, e.vars)
	rep, err := run.To(ctx, 1)
	obs := &policy.Observation{Step: e.n}
	e.n++
	if rep != nil && rep.Vars != nil {
		e.vars = rep.Vars
	}
	if rep != nil && len(rep.Steps) == 1 {
		r := rep.Steps[0]
		obs.Output, obs.ExitCode, obs.TimedOut = r.Output, r.ExitCode, r.TimedOut
	}
	var se *replayer.StepError
	switch {
	case err == nil:
		return obs, nil
	case errors.As(err, &se) && se.Reason != reason.Infra:
		if se.Reason == reason.Action && se.Err != nil {
			obs.Error = se.Err.Error()
		}
		return obs, nil
	}
	return obs, fmt.Errorf("step %d of the episode (%s): %w", obs.Step, replayer.Summary(s), err)
}
