package main

import (
	"fmt"

	"github.com/rbx-sandbox/rbx/corpus"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// loaded is a trajectory with its task.
type loaded struct {
	traj *trajectory.Trajectory
	task *task.Task
	// labels are added to the sandbox's (e.g. rbx.keep).
	labels map[string]string
}

// loadTrajectory reads path (JSON or JSONL), picks the trajectory named id
// (required when the file holds several), and loads its task: taskPath when
// given, else the one the trajectory names. Every failure is the user's
// input (exit code 2).
func loadTrajectory(path, id, taskPath string) (*loaded, error) {
	trajs, err := trajectory.Load(path)
	if err != nil {
		// Not native? A known foreign format is imported in memory.
		imported, ok, ierr := importedTrajectory(path)
		if !ok {
			return nil, fmt.Errorf("%w: %w", errUsage, err)
		}
		if ierr != nil {
			return nil, fmt.Errorf("%w: %w", errUsage, ierr)
		}
		if taskPath == "" {
			return nil, usageError("%s is not a native trajectory; it was imported, but it names no task: give one with --task", path)
		}
		trajs = imported
	}
	tr, err := corpus.Pick(path, trajs, id)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	p, err := corpus.Resolve(tr, taskPath, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	return &loaded{traj: p.Trajectory, task: p.Task}, nil
}

// loadTaskEnv returns the env map of the task at path.
func loadTaskEnv(path string) (map[string]string, error) {
	tk, err := task.Load(path)
	if err != nil {
		return nil, err
	}
	return tk.Env, nil
}
