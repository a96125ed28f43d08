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
	r, err := ep.run.Do(ctx, st)
	obs := Observation{Output: r.Output, ExitCode: r.ExitCode, Truncated: r.Truncated || int64(len(r.Output)) < r.OutputBytes,
		OutputBytes: r.OutputBytes, TimedOut: r.TimedOut, DurationMS: ms(r.Duration)}
	if st.Action == trajectory.KindHTTP {
		obs.Status = r.ExitCode
	}
	if reason.IsInfra(err) {
		return obs, errors.Join(errInfra, err)
	}
	if err != nil {
		obs.Error = actionError(err)
		if obs.ExitCode == 0 {
			obs.ExitCode = 1
		}
	}
	return obs, nil
}

// actionError is what the agent is told about an action that could not be
// carried out: the cause, without the step's position.
func actionError(err error) string {
	var se *replayer.StepError
	if errors.As(err, &se) && se.Err != nil {
		return se.Err.Error()
	}
	return err.Error()
}
