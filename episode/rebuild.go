package episode

import (
	"context"
	"errors"
	"fmt"

	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Resetter is what Rebuild needs of reset.Resetter.
type Resetter interface {
	Reset(ctx context.Context, tk *task.Task, traj *trajectory.Trajectory, k int) (*reset.Episode, error)
	Discard(sb sandbox.Sandbox)
}

// Seen is one action an episode ran and the observation its policy saw.
type Seen struct {
	Step        trajectory.Step
	Observation trajectory.Observation
}

// RebuildError is a rebuild that failed, with the end it means for the
// episode.
type RebuildError struct {
	End End
	Err error
}

func (e *RebuildError) Error() string { return "rebuild: " + e.End.Reason + ": " + e.Err.Error() }

func (e *RebuildError) Unwrap() error { return e.Err }

// Rebuild brings a new sandbox to the state an episode's lost one was in:
// the reference replayed to k (checked against the recording, as every
// reset), then the episode's own actions redone, each checked against
// what the policy saw (replayer.Run.Redo). The reset's run continues with
// the policy's next action. It fails with a *RebuildError: the reference
// no longer replays (task), an action's observation differs on replay
// (infrastructure, not_replayable: the state the policy went on from
// cannot be rebuilt), or the infrastructure failed again (repair_failed).
func Rebuild(ctx context.Context, rs Resetter, tk *task.Task, ref *trajectory.Trajectory, k int, actions []Seen) (*reset.Episode, error) {
	ep, err := rs.Reset(ctx, tk, ref, k)
	if err != nil {
		end := InfraEnd(ReasonRepairFailed, err.Error())
		if _, ok := errors.AsType[*replayer.StepError](err); ok && !reason.IsInfra(err) {
			end = TaskEnd(ReasonReferenceBroken, err.Error())
		}
		return nil, &RebuildError{End: end, Err: fmt.Errorf("reset to %d: %w", k, err)}
	}
	for i, a := range actions {
		if _, err := ep.Run.Redo(ctx, a.Step, a.Observation); err != nil {
			rs.Discard(ep.Sandbox)
			end := InfraEnd(ReasonRepairFailed, err.Error())
			if !reason.IsInfra(err) {
				end = InfraEnd(ReasonNotReplayable, err.Error())
			}
			return nil, &RebuildError{End: end, Err: fmt.Errorf("redo action %d (%s): %w", i, replayer.Summary(a.Step), err)}
		}
	}
	return ep, nil
}
