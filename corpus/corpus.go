// Package corpus loads what rbx replays: trajectory files and the task
// files they name. It is the one loader behind replay, probe, prefilter,
// sft and demo: picking a trajectory in a file, finding a task's
// trajectories beside it, loading each task file once, and checking that a
// trajectory only uses services its task declares.
package corpus

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// ErrInput is returned when the trajectory or task asked for cannot be
// found or chosen.
var ErrInput = errors.New("no trajectory to load")

// Pair is one trajectory and its task.
type Pair struct {
	Trajectory *trajectory.Trajectory
	Task       *task.Task
}

// Load reads the trajectory file at path (JSON or JSONL), picks the
// trajectory called id (see Pick), and loads its task: taskPath when given,
// else the one the trajectory names (see Resolve).
func Load(path, id, taskPath string) (*Pair, error) {
	trajs, err := trajectory.Load(path)
	if err != nil {
		return nil, err
	}
	tr, err := Pick(path, trajs, id)
	if err != nil {
		return nil, err
	}
	return Resolve(tr, taskPath, nil)
}

// Pick returns the trajectory called id among trajs, read from path; with
// id "" the file must hold exactly one. The error wraps ErrInput and lists
// the ids the file has.
func Pick(path string, trajs []*trajectory.Trajectory, id string) (*trajectory.Trajectory, error) {
	var ids []string
	for _, t := range trajs {
		if id == "" && len(trajs) == 1 || t.ID == id {
			return t, nil
		}
		ids = append(ids, t.ID)
	}
	if id == "" {
		return nil, fmt.Errorf("%w: %s holds %d trajectories (%s): choose one with --id", ErrInput, path, len(trajs), strings.Join(ids, ", "))
	}
	return nil, fmt.Errorf("%w: %s: no trajectory with id %q (has: %s)", ErrInput, path, id, strings.Join(ids, ", "))
}

// Resolve loads tr's task, taskPath when given, else the file the
// trajectory names, through tasks when not nil (each file read once), and
// checks that tr uses only services the task declares.
func Resolve(tr *trajectory.Trajectory, taskPath string, tasks *Tasks) (*Pair, error) {
	if taskPath == "" {
		p, err := tr.ResolveTaskPath()
		if err != nil {
			return nil, err
		}
		taskPath = p
	}
	if tasks == nil {
		tasks = NewTasks()
	}
	tk, _, err := tasks.Load(taskPath)
	if err != nil {
		return nil, err
	}
	if err := tr.CheckServices(tk); err != nil {
		return nil, err
	}
	return &Pair{Trajectory: tr, Task: tk}, nil
}
