package curriculum

import (
	"fmt"
	"slices"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// TaskInfo describes one task's reference trajectory to the curriculum.
type TaskInfo struct {
	// ID names the task.
	ID string `json:"id"`
	// T is the number of steps of the reference trajectory; episodes are
	// served at 0 ≤ k < T (k = T is the finished state).
	T int `json:"t"`
	// Valid[k] reports whether checkpoint k may be served; nil means every
	// k. Steps marked "checkpoint": false make the state after them invalid.
	// Valid[0] must be true: the original start is always a checkpoint.
	Valid []bool `json:"valid,omitempty"`
}

// FromTrajectory returns the TaskInfo of a reference trajectory for task id.
func FromTrajectory(id string, tr *trajectory.Trajectory) TaskInfo {
	valid := make([]bool, tr.Len())
	for k := range valid {
		valid[k] = tr.ValidCheckpoint(k)
	}
	return TaskInfo{ID: id, T: tr.Len(), Valid: valid}
}

func (ti TaskInfo) check() error {
	switch {
	case ti.ID == "":
		return fmt.Errorf("%w: empty id", ErrInvalidTask)
	case ti.T < 1:
		return fmt.Errorf("%w: task %q: T = %d, need at least one step", ErrInvalidTask, ti.ID, ti.T)
	case ti.Valid != nil && len(ti.Valid) != ti.T:
		return fmt.Errorf("%w: task %q: %d validity flags for T = %d", ErrInvalidTask, ti.ID, len(ti.Valid), ti.T)
	case ti.Valid != nil && !ti.Valid[0]:
		return fmt.Errorf("%w: task %q: checkpoint 0 must be valid", ErrInvalidTask, ti.ID)
	}
	return nil
}

// normalized returns a copy with Valid filled in.
func (ti TaskInfo) normalized() TaskInfo {
	v := make([]bool, ti.T)
	for k := range v {
		v[k] = ti.Valid == nil || ti.Valid[k]
	}
	ti.Valid = v
	return ti
}

func (ti TaskInfo) sameShape(o TaskInfo) bool {
	return ti.T == o.T && slices.Equal(ti.normalized().Valid, o.normalized().Valid)
}
