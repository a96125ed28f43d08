package evidence

import (
	"context"
	"fmt"

	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Source brings a scratch sandbox to a State. It is the seam where a
// cheaper materialisation plugs in (a cached snapshot of the prefix, then
// only the actions replayed); Replay is the one every backend has.
type Source interface {
	Materialize(ctx context.Context, st State) (*Scratch, error)
}

// Scratch is a sandbox at a State, owned by the caller until Release,
// which removes it. Cost.Source and the step counts say how it got there.
type Scratch struct {
	Sandbox sandbox.Sandbox
	Cost    Cost
	Release func()
}

// Resetter is what Replay needs of reset.Resetter.
type Resetter interface {
	Reset(ctx context.Context, tk *task.Task, traj *trajectory.Trajectory, k int) (*reset.Episode, error)
	Release(sb sandbox.Sandbox)
}

// Replay materialises a state by resetting a fresh sandbox to K (the
// reset's own prefix replay, checked against the recording) and replaying
// the actions as live actions (never compared: they are the episode's,
// and a failing one failed live too). Volatile steps and HTTP actions run
// again: an OTP is fetched anew, exactly as a fork does.
type Replay struct {
	RS Resetter
}

// Materialize implements Source.
func (r Replay) Materialize(ctx context.Context, st State) (*Scratch, error) {
	ep, err := r.RS.Reset(ctx, st.Task, st.Ref, st.K)
	if err != nil {
		return nil, err
	}
	sc := &Scratch{Sandbox: ep.Sandbox, Release: func() { r.RS.Release(ep.Sandbox) },
		Cost: Cost{Source: "replay", PrefixSteps: st.K, ActionSteps: len(st.Actions)}}
	for i, a := range st.Actions {
		obs, err := replayer.Observe(ep.Run.Do(ctx, a))
		if err != nil {
			sc.Release()
			return nil, fmt.Errorf("replay action %d (%s): %w", i, replayer.Summary(a), err)
		}
		if diverged(a.Observation, obs) {
			sc.Cost.Diverged = append(sc.Cost.Diverged, i)
		}
	}
	sc.Cost.StepsReplayed = st.K + len(st.Actions)
	return sc, nil
}

// diverged reports an exit code that differs from the recorded one.
func diverged(rec *trajectory.Observation, got trajectory.Observation) bool {
	if rec == nil || rec.ExitCode == nil || got.ExitCode == nil {
		return false
	}
	return *rec.ExitCode != *got.ExitCode
}
