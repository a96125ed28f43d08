// Package provision turns a task into a sandbox: the sandbox.Spec it runs
// in and the staging of its files (the initial files before step 0, the
// verifier's files before verification). It is the one place where the
// task format meets the sandbox package.
package provision

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
)

// Spec returns the sandbox tk runs in, with every default made explicit
// (workdir /workspace, shell session, network none, the image's user, a
// writable root, and the sandbox package's limits; see
// sandbox.Spec.WithDefaults) and the label rbx.task set to the task id
// (shortened to a legal label value when it is longer than 63 characters;
// the annotation rbx.task keeps it whole). For a task
// with Build, Image is empty: the caller sets it to the tag of the image
// it built.
func Spec(tk *task.Task) sandbox.Spec {
	spec := sandbox.Spec{
		Image:   tk.Image,
		Workdir: tk.Workdir,
		Env:     maps.Clone(tk.Env),
		Limits: sandbox.Limits{
			CPUs:          tk.Limits.CPUs,
			MemoryBytes:   int64(tk.Limits.Memory),
			Pids:          tk.Limits.Pids,
			DiskBytes:     int64(tk.Limits.Disk),
			FileSizeBytes: int64(tk.Limits.FileSize),
			NoFile:        tk.Limits.NoFile,
		},
		User:         tk.User,
		ReadOnlyRoot: tk.ReadOnlyRoot,
		CapAdd:       slices.Clone(tk.CapAdd),
		Network:      tk.Network,
		Labels:       map[string]string{sandbox.LabelTask: sandbox.LabelValue(tk.ID)},
		Annotations:  map[string]string{sandbox.AnnotationTask: tk.ID},
		Mode:         sandbox.Mode(tk.SandboxMode()),
		StepTimeout:  tk.Limits.StepTimeout.D(),
		OutputCap:    int(min(tk.Limits.Output, 1<<40)),
	}
	return spec.WithDefaults()
}

// Writer is what staging needs of a sandbox: one batch of files written
// outside its session shell (see sandbox.Sandbox.WriteFiles), so that a
// step's changes to its shell (PATH, functions, planted tools) cannot
// tamper with the task's or the verifier's files.
type Writer interface {
	WriteFiles(ctx context.Context, files []sandbox.File) error
}

// Prepare stages the task's initial files (files) into a fresh sandbox,
// before step 0.
func Prepare(ctx context.Context, sb Writer, tk *task.Task) error {
	return Files(ctx, sb, tk, tk.Files)
}

// Files stages a files map of tk (source relative to the task dir →
// destination in the sandbox) into sb, keeping file modes.
func Files(ctx context.Context, sb Writer, tk *task.Task, files map[string]string) error {
	list, err := tk.Expand(files)
	if err != nil {
		return err
	}
	batch := make([]sandbox.File, 0, len(list))
	for _, f := range list {
		data, err := os.ReadFile(f.Src)
		if err != nil {
			return fmt.Errorf("copy %s: %w", f.Src, err)
		}
		mode := f.Mode
		if mode == 0 {
			mode = 0o644
		}
		batch = append(batch, sandbox.File{Path: f.Dest, Data: data, Mode: mode})
	}
	if err := sb.WriteFiles(ctx, batch); err != nil {
		return fmt.Errorf("copy %d files of task %q: %w", len(batch), tk.ID, err)
	}
	return nil
}
