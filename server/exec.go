package server

import (
	"context"
	"errors"

	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// errInfra marks a step that failed because the sandbox or engine did.
var errInfra = errors.New("sandbox failure")

// exec runs one policy step in the episode's sandbox, continuing the
// replay run (so {{vars.X}} and captures keep working). A failing command,
// a timeout or an action that cannot be carried out (no such file, a
// service not declared) is an observation, not an error; only a sandbox
// failure is. Callers hold ep.mu.
func (s *Server) exec(ctx context.Context, ep *episode, st trajectory.Step) (Observation, error) {
	st.Observation = nil // policy steps are never compared
	ep.traj.Steps = append(ep.traj.Steps, st)
	next := len(ep.traj.Steps)
	rep, err := ep.run.To(ctx, next)
	var obs Observation
	if len(rep.Steps) > 0 {
		r := rep.Steps[len(rep.Steps)-1]
		obs = Observation{Output: r.Output, ExitCode: r.ExitCode, Truncated: r.Truncated || int64(len(r.Output)) < r.OutputBytes,
			OutputBytes: r.OutputBytes, TimedOut: r.TimedOut, DurationMS: ms(r.Duration)}
		if st.Action == trajectory.KindHTTP {
			obs.Status = r.ExitCode
		}
	}
	if err == nil {
		return obs, nil
	}
	var se *replayer.StepError
	if !errors.As(err, &se) || se.Reason == reason.Infra {
		return obs, errors.Join(errInfra, err)
	}
	if se.Reason == reason.Action {
		obs.Error = se.Error()
		if se.Err != nil {
			obs.Error = se.Err.Error()
		}
		if obs.ExitCode == 0 {
			obs.ExitCode = 1
		}
	}
	// The run stopped at the failed step; continue after it.
	ep.run = s.rp.Resume(ep.sb, ep.entry.Task, ep.traj, next, ep.run.Vars())
	return obs, nil
}
