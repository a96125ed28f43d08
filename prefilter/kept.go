package prefilter

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"

	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// WriteKept writes the kept trajectories of rep (the report Run returned
// for items) into dir as native files: one directory per task holding a
// verbatim copy of the task file, every file the task names (files,
// verify.files, build context), and one <id>.json per kept trajectory
// whose task field names the copied task file. The result is
// self-contained and is itself a valid prefilter input. It returns the
// trajectory files written.
func WriteKept(dir string, items []*Item, rep *Report) ([]string, error) {
	if len(rep.Results) != len(items) {
		return nil, fmt.Errorf("write kept set: %d results for %d items", len(rep.Results), len(items))
	}
	w := keptWriter{dir: dir, taskDirs: map[string]string{}, claimed: map[string]string{}, names: map[string]bool{}}
	var written []string
	for i, it := range items {
		if rep.Results[i].Status != StatusKept || it.Traj == nil || it.Task == nil {
			continue
		}
		p, err := w.write(it, rep.Results[i].Pins)
		if err != nil {
			return written, err
		}
		written = append(written, p)
	}
	return written, nil
}

type keptWriter struct {
	dir      string
	taskDirs map[string]string // task file → its directory in the kept set
	claimed  map[string]string // directory name → task file
	names    map[string]bool   // trajectory files written
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func (w *keptWriter) write(it *Item, pins []Pin) (string, error) {
	td, err := w.taskDir(it)
	if err != nil {
		return "", err
	}
	base := unsafeName.ReplaceAllString(it.Traj.ID, "_")
	name := filepath.Join(td, base+".json")
	for n := 2; w.names[name] || filepath.Base(name) == filepath.Base(it.Task.Path); n++ {
		name = filepath.Join(td, fmt.Sprintf("%s-%d.json", base, n))
	}
	w.names[name] = true
	cp := *applyPins(it.Traj, pins)
	cp.Task = filepath.Base(it.Task.Path)
	f, err := os.Create(name)
	if err != nil {
		return "", fmt.Errorf("write kept trajectory: %w", err)
	}
	if err := trajectory.Write(f, &cp); err != nil {
		_ = f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("write kept trajectory: %w", err)
	}
	return name, nil
}

// taskDir returns (creating on first use) the kept-set directory of the
// item's task, named by the task id, disambiguated when two task files
// share an id.
func (w *keptWriter) taskDir(it *Item) (string, error) {
	src := filepath.Clean(it.Task.Path)
	if d, ok := w.taskDirs[src]; ok {
		return d, nil
	}
	name := it.Task.ID
	if other, ok := w.claimed[name]; ok && other != src {
		h := sha256.Sum256([]byte(src))
		name += "-" + hex.EncodeToString(h[:3])
	}
	w.claimed[name] = src
	d := filepath.Join(w.dir, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", fmt.Errorf("write kept set: %w", err)
	}
	if err := os.WriteFile(filepath.Join(d, filepath.Base(src)), it.taskData, 0o644); err != nil {
		return "", fmt.Errorf("write kept task: %w", err)
	}
	if err := copyTaskFiles(it.Task, d); err != nil {
		return "", err
	}
	w.taskDirs[src] = d
	return d, nil
}

// copyTaskFiles copies every file the task names, keeping its path
// relative to the task file.
func copyTaskFiles(tk *task.Task, dst string) error {
	groups := []map[string]string{tk.Files, tk.Verify.Files}
	if tk.Build != nil && tk.Build.Context != "" {
		groups = append(groups, map[string]string{tk.Build.Context: "/"})
	}
	for _, g := range groups {
		files, err := tk.Expand(g)
		if err != nil {
			return fmt.Errorf("write kept task %s: %w", tk.ID, err)
		}
		for _, f := range files {
			rel, err := filepath.Rel(tk.Dir, f.Src)
			if err != nil {
				return fmt.Errorf("write kept task %s: %w", tk.ID, err)
			}
			if err := copyFile(f.Src, filepath.Join(dst, rel), f.Mode); err != nil {
				return fmt.Errorf("write kept task %s: %w", tk.ID, err)
			}
		}
	}
	return nil
}

func copyFile(src, dst string, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}
