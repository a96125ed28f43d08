package main

import (
	"fmt"
	"strings"

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
// given, else the one the trajectory names.
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
	tr, err := pick(path, trajs, id)
	if err != nil {
		return nil, err
	}
	if taskPath == "" {
		if taskPath, err = tr.ResolveTaskPath(); err != nil {
			return nil, fmt.Errorf("%w: %w", errUsage, err)
		}
	}
	tk, err := task.Load(taskPath)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	if err := tr.CheckServices(tk); err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	return &loaded{traj: tr, task: tk}, nil
}

func pick(path string, trajs []*trajectory.Trajectory, id string) (*trajectory.Trajectory, error) {
	var ids []string
	for _, t := range trajs {
		if id == "" && len(trajs) == 1 || t.ID == id {
			return t, nil
		}
		ids = append(ids, t.ID)
	}
	if id == "" {
		return nil, usageError("%s holds %d trajectories (%s): choose one with --id", path, len(trajs), strings.Join(ids, ", "))
	}
	return nil, usageError("%s: no trajectory with id %q (has: %s)", path, id, strings.Join(ids, ", "))
}

// loadTaskEnv returns the env map of the task at path.
func loadTaskEnv(path string) (map[string]string, error) {
	tk, err := task.Load(path)
	if err != nil {
		return nil, err
	}
	return tk.Env, nil
}
