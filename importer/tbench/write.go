package tbench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rbx-sandbox/rbx/images"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Written is where a converted task was written.
type Written struct {
	Dir, TaskPath, TrajectoryPath string
	// ContextDir is the build context of the task image ("" when the task
	// runs on its base image directly); Image the task's image reference.
	ContextDir, Image string
}

// Write writes the task under out/<id>/: task.json, reference.json (the
// trajectory), tests/, rbx-verifier/ and environment/ (the build context
// with the rewritten Dockerfile, or the files a Dockerfile-less task needs).
// The task's image is its base image, or rbx-task/<id>:<context hash>.
func (c *Converted) Write(out string) (*Written, error) {
	w := &Written{Dir: filepath.Join(out, c.Task.ID)}
	if err := os.RemoveAll(w.Dir); err != nil {
		return nil, fmt.Errorf("write task %s: %w", c.Task.ID, err)
	}
	if err := c.writeFiles(w); err != nil {
		return nil, fmt.Errorf("write task %s: %w", c.Task.ID, err)
	}
	w.Image = c.BaseImage
	if c.Dockerfile != "" {
		w.ContextDir = filepath.Join(w.Dir, "environment")
		tag, err := images.TaskTag(c.Task.ID, w.ContextDir)
		if err != nil {
			return nil, err
		}
		w.Image = tag
		// The context travels with the task (and a kept set), so the image
		// can be rebuilt on another engine.
		c.Task.Build = &task.Build{Context: "environment"}
	}
	c.Task.Image = w.Image
	w.TaskPath, w.TrajectoryPath = filepath.Join(w.Dir, "task.json"), filepath.Join(w.Dir, "reference.json")
	if err := writeJSON(w.TaskPath, c.Task); err != nil {
		return nil, err
	}
	f, err := os.Create(w.TrajectoryPath)
	if err != nil {
		return nil, err
	}
	err = trajectory.Write(f, c.Trajectory)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return w, check(w)
}

func (c *Converted) writeFiles(w *Written) error {
	src := c.Source
	if err := copyTree(filepath.Join(src.Dir, "tests"), filepath.Join(w.Dir, "tests"), nil); err != nil {
		return fmt.Errorf("copy tests: %w", err)
	}
	for rel, content := range c.TestFiles {
		p := filepath.Join(w.Dir, "tests", filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			return err
		}
	}
	for name, content := range c.VerifyFiles {
		p := filepath.Join(w.Dir, "rbx-verifier", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			return err
		}
	}
	env := filepath.Join(w.Dir, "environment")
	switch {
	case c.Dockerfile != "":
		skip := func(rel string) bool {
			top := strings.SplitN(rel, "/", 2)[0]
			return src.Layout == LayoutTerminalBench && (slices.Contains(metaFiles, top) || strings.HasPrefix(top, "LICENSE"))
		}
		if err := copyTree(src.ContextDir, env, skip); err != nil {
			return fmt.Errorf("copy build context: %w", err)
		}
		return os.WriteFile(filepath.Join(env, "Dockerfile"), []byte(c.Dockerfile), 0o644)
	case len(c.Extra) > 0:
		return copyTree(src.Dir, env, func(rel string) bool {
			top := strings.SplitN(rel, "/", 2)[0]
			return !slices.Contains(c.Extra, top) && !slices.Contains(c.Extra, top+"/")
		})
	}
	return nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// check loads what was written as rbx will.
func check(w *Written) error {
	if _, err := task.Load(w.TaskPath); err != nil {
		return fmt.Errorf("written task is not valid: %w", err)
	}
	if _, err := trajectory.Load(w.TrajectoryPath); err != nil {
		return fmt.Errorf("written trajectory is not valid: %w", err)
	}
	return nil
}
