package replayer

import (
	"context"
	"fmt"

	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Redo runs again a live action an agent already saw the observation of
// (seen), in a sandbox rebuilt to the state it ran in, and checks that it
// saw the same: exit code or status, timeout, session end, the action's
// error, and the output under the run's comparison. A difference is a
// *StepError with a divergence reason (the state after the action is not
// the one the agent went on from: the rebuild is not faithful); any other
// error is Do's. Volatile steps are not redone: their output is allowed
// to differ, so the state after them cannot be proven the same.
func (run *Run) Redo(ctx context.Context, s trajectory.Step, seen trajectory.Observation) (trajectory.Observation, error) {
	i := run.next + run.live
	diverged := func(why reason.Reason, want, got string) (trajectory.Observation, error) {
		return trajectory.Observation{}, &StepError{Index: i, Action: s.Action, Summary: Summary(s), Reason: why, Expected: want, Got: got}
	}
	if s.Volatile {
		return diverged(reason.Output, "a step whose output replays", "a volatile step")
	}
	obs, err := Observe(run.Do(ctx, s))
	if err != nil {
		return obs, err
	}
	code := func(o trajectory.Observation) string {
		if o.Status != 0 {
			return fmt.Sprint(o.Status)
		}
		if o.ExitCode == nil {
			return "none"
		}
		return fmt.Sprint(*o.ExitCode)
	}
	switch {
	case code(seen) != code(obs):
		return diverged(reason.ExitCode, code(seen), code(obs))
	case seen.TimedOut != obs.TimedOut:
		return diverged(reason.Timeout, fmt.Sprintf("timed out: %v", seen.TimedOut), fmt.Sprintf("timed out: %v", obs.TimedOut))
	case seen.SessionLost != obs.SessionLost:
		return diverged(reason.SessionLost, fmt.Sprintf("session lost: %v", seen.SessionLost), fmt.Sprintf("session lost: %v", obs.SessionLost))
	case seen.Error != obs.Error:
		return diverged(reason.Action, quoteExcerpt(seen.Error), quoteExcerpt(obs.Error))
	}
	if ok, want := matches(run.ComparisonFor(s), &seen, obs.Output); !ok {
		return diverged(reason.Output, want, quoteExcerpt(obs.Output))
	}
	return obs, nil
}
