package probe

import (
	"context"
	"fmt"

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
func do(ctx context.Context, ep *reset.Episode, n int, s trajectory.Step) (*trajectory.Observation, error) {
	obs, err := replayer.Observe(ep.Run.Do(ctx, s))
	if err != nil {
		return &obs, fmt.Errorf("step %d of the episode (%s): %w", n, replayer.Summary(s), err)
	}
	return &obs, nil
}
