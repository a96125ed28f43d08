package prefilter

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rbx-sandbox/rbx/importer"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Found is what Find found under its paths.
type Found struct {
	// Items are the trajectories to judge (and the documents that failed
	// to load).
	Items []*Item
	// Foreign lists the trajectory files in other formats, imported or not.
	Foreign []Foreign
	// Tasks and Other are the task files and the other files seen.
	Tasks, Other []string
}

// Foreign is a trajectory file in another agent's format.
type Foreign struct {
	File   string          `json:"file"`
	Format importer.Format `json:"format"`
	// Steps is the number of steps it imports to (0 when it failed).
	Steps int `json:"steps"`
	// Task is the task file it was matched to; empty when none is known,
	// and then the file is not judged.
	Task string `json:"task,omitempty"`
	// Err is why it could not be imported.
	Err error `json:"-"`
}

// Unmatched lists the foreign files that are not judged for want of a task.
func (f *Found) Unmatched() []Foreign {
	var out []Foreign
	for _, fr := range f.Foreign {
		if fr.Task == "" {
			out = append(out, fr)
		}
	}
	return out
}

// FindOption configures Find.
type FindOption func(*findConfig) error

type findConfig struct {
	task  string            // --task: the task of every foreign trajectory
	byID  map[string]string // --tasks: task id → task file
	tasks string
}

// WithTask names the task file of every foreign-format trajectory (default:
// matched by WithTasksDir, else a task file beside the trajectory).
func WithTask(path string) FindOption {
	return func(c *findConfig) error {
		if _, err := task.Load(path); err != nil {
			return fmt.Errorf("--task: %w", err)
		}
		c.task = path
		return nil
	}
}

// WithTasksDir maps foreign-format trajectories to the tasks under dir by
// id: a trajectory's id, its file name without extensions, or its
// directory's name, the first that is a task id (default: none).
func WithTasksDir(dir string) FindOption {
	return func(c *findConfig) error {
		var w walked
		if err := w.walk(dir); err != nil {
			return fmt.Errorf("--tasks: %w", err)
		}
		c.byID, c.tasks = map[string]string{}, dir
		for _, p := range w.tasks {
			tk, err := task.Load(p)
			if err != nil {
				continue // a JSON file of a workspace, or a broken task nobody names
			}
			if prev, ok := c.byID[tk.ID]; ok && prev != p {
				return fmt.Errorf("--tasks %s: task id %q is defined twice: %s and %s", dir, tk.ID, prev, p)
			}
			c.byID[tk.ID] = p
		}
		if len(c.byID) == 0 {
			return fmt.Errorf("--tasks %s: no task file found (task.yaml, *.yml or a task *.json)", dir)
		}
		return nil
	}
}

func newFindConfig(opts []FindOption) (findConfig, error) {
	var c findConfig
	for _, o := range opts {
		if err := o(&c); err != nil {
			return c, err
		}
	}
	return c, nil
}

// foreign imports the foreign files whose task is known into items, and
// describes every foreign file.
func (c findConfig) foreign(l *loader, files []string) ([]*Item, []Foreign) {
	var items []*Item
	var out []Foreign
	for _, f := range files {
		fr := Foreign{File: f}
		data, err := os.ReadFile(f)
		if err == nil {
			fr.Format, err = importer.Detect(data)
		}
		var res *importer.Result
		if err == nil {
			res, err = importer.Import(fr.Format, f, data)
		}
		if err != nil {
			fr.Err = err
		} else {
			for _, t := range res.Trajectories {
				fr.Steps += t.Len()
			}
			fr.Task = c.taskOf(f, res.Trajectories)
		}
		out = append(out, fr)
		if fr.Task == "" {
			continue
		}
		rel, rerr := filepath.Rel(filepath.Dir(f), fr.Task)
		if rerr != nil {
			rel = fr.Task
		}
		res, err = importer.Import(fr.Format, f, data, importer.WithTask(filepath.ToSlash(rel)))
		if err != nil {
			items = append(items, &Item{Key: Key{File: f, Hash: hashOf(data)}, Err: err})
			continue
		}
		for _, t := range res.Trajectories {
			t.Path = f
			items = append(items, l.item(t))
		}
	}
	return items, out
}

// taskOf is the task file of a foreign trajectory file, or "".
func (c findConfig) taskOf(file string, trajs []*trajectory.Trajectory) string {
	if c.task != "" {
		return c.task
	}
	dir := filepath.Dir(file)
	stem := importer.IDFromName(file)
	if c.byID != nil {
		names := []string{stem, filepath.Base(dir)}
		for _, t := range trajs {
			names = append([]string{t.ID}, names...)
		}
		for _, n := range names {
			if p, ok := c.byID[n]; ok {
				return p
			}
		}
	}
	for _, name := range []string{stem + ".yaml", stem + ".yml", "task.yaml", "task.yml"} {
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// Describe says, for people, what a foreign file holds.
func (fr Foreign) Describe() string {
	if fr.Err != nil {
		return fmt.Sprintf("%s: looks like %s but does not import: %v", fr.File, fr.Format, fr.Err)
	}
	what := fmt.Sprintf("%s: %s trajectory, %d steps", fr.File, fr.Format, fr.Steps)
	if fr.Task != "" {
		return what + ", task " + fr.Task
	}
	return what + ", no task known"
}

// Hint is the command that makes unmatched foreign trajectories under
// paths usable.
func Hint(paths []string) string {
	return "to prefilter them, name their task: `rbx prefilter " + strings.Join(paths, " ") +
		" --task TASK.yaml` (one task for all), --tasks DIR (matched by trajectory id, file name or folder name), " +
		"or a task.yaml beside each file; `rbx import FILE --task TASK.yaml` converts one to a native trajectory"
}
