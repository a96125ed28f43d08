package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// loaded is a trajectory with its task.
type loaded struct {
	traj *trajectory.Trajectory
	task *task.Task
}

// loadTrajectory reads path (JSON or JSONL), picks the trajectory named id
// (required when the file holds several), and loads its task: taskPath when
// given, else the one the trajectory names.
func loadTrajectory(path, id, taskPath string) (*loaded, error) {
	trajs, err := trajectory.Load(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
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
	if err := checkAgainstTask(tr, tk); err != nil {
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

// checkAgainstTask reports references that only the pair can check: services
// the trajectory calls that the task does not declare.
func checkAgainstTask(tr *trajectory.Trajectory, tk *task.Task) error {
	for i, s := range tr.Steps {
		for _, field := range []string{s.URL, s.Command, s.Path} {
			for _, ref := range trajectory.References(field) {
				if ref.Scope == trajectory.ScopeServices {
					if _, ok := tk.Services[ref.Name]; !ok {
						return fmt.Errorf("%s: steps[%d]: {{services.%s}} is not declared in the services of task %q (%s; declared: %s)",
							tr.Path, i, ref.Name, tk.ID, tk.Path, strings.Join(sortedKeys(tk.Services), ", "))
					}
				}
			}
		}
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		return []string{"none"}
	}
	return keys
}

// loadTaskEnv returns the env map of the task at path.
func loadTaskEnv(path string) (map[string]string, error) {
	tk, err := task.Load(path)
	if err != nil {
		return nil, err
	}
	return tk.Env, nil
}
