package probe

import (
	"context"
	"fmt"

	"github.com/rbx-sandbox/rbx/policy"
	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// do executes the agent's n-th action in the episode by continuing the
// reset's replay run (replayer.Run.Do): never compared against a
// recording — what counts in a probe is the verifier's verdict at the end —
// and with the variables bound so far. An action that fails as an action
// (edit target absent, undefined variable) is an observation for the
// agent; only a failure of the sandbox or engine is returned as an error.
func do(ctx context.Context, ep *reset.Episode, n int, s trajectory.Step) (*policy.Observation, error) {
	r, err := ep.Run.Do(ctx, s)
	obs := &policy.Observation{Step: n, Output: r.Output, ExitCode: r.ExitCode, TimedOut: r.TimedOut}
	if err == nil {
		return obs, nil
	}
	if !reason.IsInfra(err) {
		obs.Error = err.Error()
		if se, ok := err.(*replayer.StepError); ok && se.Err != nil {
			obs.Error = se.Err.Error()
		}
		return obs, nil
	}
	return obs, fmt.Errorf("step %d of the episode (%s): %w", n, replayer.Summary(s), err)
}
