package corpus

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// Input names a trajectory to load: a trajectory file, the id within it ("" when
// it holds one), and the task file ("" to use the one the trajectory names).
type Input struct {
	TrajectoryPath string
	ID             string
	TaskPath       string
}

// Locate resolves a command's argument naming a trajectory: a trajectory file (JSON or JSONL;
// traj picks the id), a task file (YAML or JSON) or a directory holding
// task.yaml. For a task, traj is a trajectory file, or the id of one of the
// task's trajectories in the task's directory, or "" when it has only one.
func Locate(arg, traj string) (Input, error) {
	if st, err := os.Stat(arg); err != nil {
		return Input{}, fmt.Errorf("%w: %v", ErrInput, err)
	} else if st.IsDir() {
		found := ""
		for _, name := range []string{"task.yaml", "task.yml", "task.json"} {
			if _, err := os.Stat(filepath.Join(arg, name)); err == nil {
				found = filepath.Join(arg, name)
				break
			}
		}
		if found == "" {
			return Input{}, fmt.Errorf("%w: directory %s has no task.yaml, task.yml or task.json", ErrInput, arg)
		}
		arg = found
	}
	if IsTrajectoryFile(arg) {
		return Input{TrajectoryPath: arg, ID: traj}, nil
	}
	if traj != "" {
		if st, err := os.Stat(traj); err == nil && !st.IsDir() {
			return Input{TrajectoryPath: traj, TaskPath: arg}, nil
		}
	}
	return findTrajectory(arg, traj)
}

// findTrajectory looks for the task's trajectories beside its file.
func findTrajectory(taskPath, id string) (Input, error) {
	tk, _, err := NewTasks().Load(taskPath)
	if err != nil {
		return Input{}, err
	}
	var files []string
	for _, pat := range []string{"*.json", "*.jsonl"} {
		m, _ := filepath.Glob(filepath.Join(filepath.Dir(taskPath), pat))
		files = append(files, m...)
	}
	slices.Sort(files)
	var found []Input
	var names []string
	for _, f := range files {
		if !IsTrajectoryFile(f) {
			continue
		}
		trs, err := trajectory.Load(f)
		if err != nil {
			continue
		}
		for _, tr := range trs {
			p, err := tr.ResolveTaskPath()
			if err != nil || !sameFile(p, taskPath) && tr.Task != tk.ID {
				continue
			}
			names = append(names, tr.ID)
			if id == "" || tr.ID == id {
				found = append(found, Input{TrajectoryPath: f, ID: tr.ID, TaskPath: taskPath})
			}
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) == 0 && id != "":
		return Input{}, fmt.Errorf("%w: no trajectory %q of task %s beside %s (found: %s)", ErrInput, id, tk.ID, taskPath, strings.Join(names, ", "))
	case len(found) == 0:
		return Input{}, fmt.Errorf("%w: no trajectory of task %s beside %s: give one with --trajectory FILE", ErrInput, tk.ID, taskPath)
	}
	return Input{}, fmt.Errorf("%w: task %s has %d trajectories (%s): choose one with --trajectory ID", ErrInput, tk.ID, len(found), strings.Join(names, ", "))
}

// isTrajectoryFile: JSONL, or a JSON object with "steps".
func IsTrajectoryFile(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl":
		return true
	case ".json":
		data, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		var doc map[string]json.RawMessage
		if json.Unmarshal(data, &doc) != nil {
			return false
		}
		_, ok := doc["steps"]
		return ok
	}
	return false
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
