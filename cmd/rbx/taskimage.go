package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/rbx-sandbox/rbx/images"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
)

// buildTaskImages builds the images of tasks that name a Dockerfile
// (build:) on a runtime that keeps images (docker, containerd), once per
// context: a task with no image gets the tag of its context's content
// (images.TaskTag), and one whose image the engine lacks has it built
// under that tag (the context travels with the task to rebuild it on
// another engine). The tasks' Image is set in place, before anything keys
// on it. Build output goes to progress.
func buildTaskImages(ctx context.Context, rt sandbox.Runtime, progress io.Writer, tasks ...*task.Task) error {
	store, ok := rt.(sandbox.ImageStore)
	if !ok {
		return nil // the local runtime has no images
	}
	built := map[string]string{} // context directory → tag built from it
	for _, tk := range tasks {
		if tk.Build == nil {
			continue
		}
		if df := tk.Build.Dockerfile; df != "" && filepath.Clean(df) != "Dockerfile" {
			return fmt.Errorf("%s: build.dockerfile %q: rbx builds the Dockerfile at the top of the context only", tk.Path, df)
		}
		dir := filepath.Join(tk.Dir, tk.Build.Context)
		if tag, ok := built[dir]; ok && (tk.Image == "" || tk.Image == tag) {
			tk.Image = tag
			continue
		}
		tag := tk.Image
		if tag == "" {
			var err error
			if tag, err = images.TaskTag(tk.ID, dir); err != nil {
				return fmt.Errorf("%s: build: %w", tk.Path, err)
			}
		} else if present, err := store.ImagePresent(ctx, tag); err != nil {
			return fmt.Errorf("task %s: image %s: %w", tk.ID, tag, err)
		} else if present {
			continue // built here before, or loaded: used as it is
		}
		fmt.Fprintf(progress, "building image %s for task %s from %s\n", tag, tk.ID, dir)
		if _, err := store.BuildImage(ctx, dir, tag); err != nil {
			return fmt.Errorf("%s: build: %w", tk.Path, err)
		}
		tk.Image, built[dir] = tag, tag
	}
	return nil
}
