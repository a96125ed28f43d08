package replayer

import (
	"context"
	"errors"
	"time"

	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Do executes s, one live action (an agent's, not the recording's), in the
// run's sandbox after what the run did so far. It is never compared with a
// recording: a non-zero exit code, an HTTP error status or a timeout is
// what the action did, reported in the result, not an error. Its captures
// bind variables for the actions after it. The error is a *StepError with
// reason action_failed when the action could not be carried out (edit
// target absent, undefined variable, capture field missing), which the
// agent should be told; any other error is the sandbox's
// (reason.IsInfra). The action's own timeout is capped at the task's step
// limit (StepLimit); the result's TimeoutCapped says when it was.
func (run *Run) Do(ctx context.Context, s trajectory.Step) (StepResult, error) {
	s.Observation, s.Checkpoint = nil, nil
	capped := s.Timeout.D() > run.StepLimit()
	if capped {
		s.Timeout = task.Duration(run.StepLimit())
	}
	i := run.next + run.live
	run.live++
	res, out, err := run.run(ctx, i, s)
	res.TimeoutCapped = capped
	why := reasonOf(err)
	if err == nil && !out.timedOut && !(s.Action == trajectory.KindHTTP && out.exitCode >= 400) {
		err, why = run.capture(s, out), reason.Action
	}
	res.Status = StatusOK
	if err != nil || out.timedOut {
		res.Status = StatusFailed
	}
	if run.r.onStep != nil {
		run.r.onStep(res)
	}
	if err != nil {
		return res, &StepError{Index: i, Action: s.Action, Summary: res.Summary, Reason: why, Output: res.Output, Err: err}
	}
	return res, nil
}

// StepLimit is the longest a live action may run: the task's
// limits.step_timeout, or sandbox.DefaultStepTimeout when it sets none. An
// agent may ask for less time, never more: its commands are untrusted.
// (Recorded reference steps keep their own timeouts: the task's author
// wrote them and prefilter checked them.)
func (run *Run) StepLimit() time.Duration {
	if d := run.task.Limits.StepTimeout.D(); d > 0 {
		return d
	}
	return sandbox.DefaultStepTimeout
}

// Observe turns what Do returned into what an agent reads: the action's
// observation, with Error set (and a zero exit code made 1) when the
// action could not be carried out. Only an infrastructure failure
// (reason.IsInfra) is returned as an error, with the partial observation.
func Observe(res StepResult, err error) (trajectory.Observation, error) {
	obs := res.Observation()
	if err == nil {
		return obs, nil
	}
	if reason.IsInfra(err) {
		return obs, err
	}
	obs.Error = err.Error()
	if se, ok := errors.AsType[*StepError](err); ok && se.Err != nil {
		obs.Error = se.Err.Error()
	}
	if *obs.ExitCode == 0 {
		*obs.ExitCode = 1
	}
	return obs, nil
}
