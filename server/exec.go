package server

import (
	"context"
	"errors"

	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// errInfra marks a step that failed because the sandbox or engine did.
var errInfra = errors.New("sandbox failure")

// exec runs one policy step in the episode's sandbox, continuing the
// reset's replay run (so {{vars.X}} and captures keep working). A failing
// command, a timeout or an action that cannot be carried out (no such
// file, a service not declared) is an observation, not an error; only a
// sandbox failure is. Callers hold ep.mu.
func (s *Server) exec(ctx context.Context, ep *episode, st trajectory.Step) (trajectory.Observation, error) {
	obs, err := replayer.Observe(ep.run.Do(ctx, st))
	if err != nil {
		return obs, errors.Join(errInfra, err)
	}
	return obs, nil
}
