package server

import (
	"fmt"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// candidate is a policy episode that may replace its task's reference:
// the reference prefix [0, k) of the version it was reset on, then the
// episode's actions with their live observations (docs/curriculum.md).
type candidate struct {
	task    string
	episode string
	parent  int // the version the episode was reset on
	k       int
	traj    *trajectory.Trajectory
}

// newCandidate builds the candidate of a successful episode of e, or says
// why the episode is none: only the policy's own episodes qualify (a fork
// replays another episode's actions and an intervened action is not the
// policy's: both are off-policy), with at least one action and fewer
// actions than the reference's suffix from k.
func newCandidate(e *Entry, rec record) (*candidate, error) {
	suffix := e.Ref.Len() - rec.K
	switch {
	case rec.Parent != "":
		return nil, fmt.Errorf("episode %s is a fork of %s: off-policy", rec.ID, rec.Parent)
	case len(rec.Actions) == 0:
		return nil, fmt.Errorf("episode %s took no action", rec.ID)
	case len(rec.Actions) >= suffix:
		return nil, fmt.Errorf("episode %s took %d actions, the reference %d from k = %d", rec.ID, len(rec.Actions), suffix, rec.K)
	}
	for i, a := range rec.Actions {
		if a.Intervened || a.Inherited {
			return nil, fmt.Errorf("episode %s: action %d was not the policy's: off-policy", rec.ID, i)
		}
	}
	id := fmt.Sprintf("%s.v%d", rec.Task, e.version+1)
	tr := &trajectory.Trajectory{ID: id, Task: e.Task.ID, Vars: e.Ref.Vars, Messages: e.Ref.Messages, Steps: stepsOf(e, rec)}
	if err := tr.Validate(); err != nil {
		return nil, fmt.Errorf("episode %s as a reference: %w", rec.ID, err)
	}
	return &candidate{task: rec.Task, episode: rec.ID, parent: e.version, k: rec.K, traj: tr}, nil
}
