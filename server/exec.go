package server

import (
	"context"
	"errors"

	epi "github.com/rbx-sandbox/rbx/episode"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox/session"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// errInfra marks a step that failed because the sandbox or engine did.
var errInfra = errors.New("sandbox failure")

// exec runs one policy step in the episode's sandbox, continuing the
// reset's replay run (so {{vars.X}} and captures keep working). A failing
// command, a timeout or an action that cannot be carried out (no such
// file, a service not declared) is an observation, not an error; only a
// sandbox failure is. Callers hold ep.mu.
//
// The deadline is rbx's, not the sandbox's: past the action's timeout
// plus outsideGrace the call stops waiting (episode.ErrFrozen), and a
// step that timed out in a sandbox its engine shows paused is reported
// the same way, so survive charges the freeze to the infrastructure.
func (s *Server) exec(ctx context.Context, ep *episode, st trajectory.Step) (trajectory.Observation, error) {
	limit := timeoutOf(ep, st)
	if st.Action != trajectory.KindShell && st.Action != trajectory.KindHTTP {
		limit = session.FileOpTimeout
	}
	dctx, cancel := context.WithTimeout(ctx, limit+outsideGrace)
	defer cancel()
	obs, err := replayer.Observe(ep.run.Do(dctx, st))
	switch {
	case err != nil && ctx.Err() == nil && dctx.Err() != nil:
		return obs, errors.Join(errInfra, epi.ErrFrozen, err)
	case err != nil:
		return obs, errors.Join(errInfra, err)
	case (obs.TimedOut || obs.SessionLost) && s.frozen(ctx, ep):
		return obs, errors.Join(errInfra, epi.ErrFrozen, errors.New("the step timed out in a paused sandbox"))
	}
	return obs, nil
}
