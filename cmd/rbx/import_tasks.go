package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/rbx-sandbox/rbx/images"
	"github.com/rbx-sandbox/rbx/importer/tbench"
	"github.com/rbx-sandbox/rbx/sandbox"
)

// taskImport is the outcome of one task folder.
type taskImport struct {
	Source string `json:"source"`
	Dir    string `json:"dir,omitempty"`
	Image  string `json:"image,omitempty"`
	Built  bool   `json:"built,omitempty"`
	// ImageState is "built", "present", or "not built" (--build=false or
	// no engine): what the import knows about the task's image.
	ImageState string           `json:"image_state,omitempty"`
	Steps      int              `json:"steps,omitempty"`
	Offline    []tbench.Problem `json:"not_offline,omitempty"`
	// Replacements are the Dockerfile and test-script lines run differently (offline).
	Replacements []tbench.Replacement `json:"replacements,omitempty"`
	Warnings     []string             `json:"warnings,omitempty"`
	Error        string               `json:"error,omitempty"`
	w            *tbench.Written
	base         string
}

func runImportTasks(ctx context.Context, s Streams, log *slog.Logger, o *importOptions) error {
	dirs, err := taskDirs(o.src)
	if err != nil {
		return err
	}
	conv := tbench.Options{}
	if o.aliases != "" {
		if conv.Aliases, err = images.LoadAliases(o.aliases); err != nil {
			return usageError("--aliases: %w", err)
		}
	}
	var results []*taskImport
	failed := 0
	for _, d := range dirs {
		r := importTask(d, o.out, conv)
		if r.Error == "" {
			r.ImageState = "not built"
		}
		if r.Error == "" && o.build {
			if err := buildTaskImage(ctx, s, log, o, r); err != nil {
				r.Error = err.Error()
			}
		}
		if r.Error != "" {
			failed++
		}
		results = append(results, r)
		if o.output != "json" {
			printTaskImport(s, r)
		}
	}
	if o.output == "json" {
		if err := writeJSON(s.Out, map[string]any{"tasks": results}); err != nil {
			return err
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d tasks not imported", failed, len(dirs))
	}
	return nil
}

// taskDirs is src itself when it is a task folder, else its task subfolders.
func taskDirs(src string) ([]string, error) {
	if _, err := tbench.Read(src); err == nil {
		return []string{src}, nil
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return nil, usageError("import: %w", err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			if _, err := tbench.Read(filepath.Join(src, e.Name())); err == nil {
				out = append(out, filepath.Join(src, e.Name()))
			}
		}
	}
	if len(out) == 0 {
		return nil, usageError("import: %s: %w", src, tbench.ErrNotTask)
	}
	return out, nil
}

func importTask(dir, out string, conv tbench.Options) *taskImport {
	r := &taskImport{Source: dir}
	c, err := tbench.Convert(dir, conv)
	var off *tbench.OfflineError
	if c != nil {
		r.Replacements, r.Warnings = c.Replacements, c.Warnings
	}
	if errors.As(err, &off) {
		r.Offline, r.Error = off.Problems, err.Error()
		return r
	}
	if err != nil {
		r.Error = err.Error()
		return r
	}
	w, err := c.Write(out)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.Dir, r.Image, r.Steps, r.w, r.base = w.Dir, w.Image, len(c.Trajectory.Steps), w, c.BaseImage
	return r
}

// buildTaskImage builds the base recipe and the task image on Docker.
func buildTaskImage(ctx context.Context, s Streams, log *slog.Logger, o *importOptions, r *taskImport) error {
	rt, err := openImageStore(ctx, log, s.ErrOut)
	if errors.Is(err, sandbox.ErrUnavailable) {
		fmt.Fprintf(s.ErrOut, "warning: no Docker engine (%v): task images not built\n", err)
		o.build = false
		return nil
	}
	if err != nil {
		return err
	}
	defer rt.Close()
	base := r.base
	if _, known := images.Lookup(base); known {
		if _, err := rt.EnsureImage(ctx, base); err != nil {
			return fmt.Errorf("build base image %s: %w", base, err)
		}
	}
	if r.w.ContextDir == "" {
		r.ImageState = "present"
		return nil
	}
	r.Built, err = rt.BuildImage(ctx, r.w.ContextDir, r.Image)
	if err == nil {
		r.ImageState = map[bool]string{true: "built", false: "present"}[r.Built]
	}
	return err
}

func printTaskImport(s Streams, r *taskImport) {
	switch {
	case r.Error != "":
		fmt.Fprintf(s.ErrOut, "%s: %s\n", r.Source, r.Error)
	default:
		fmt.Fprintf(s.Out, "%s → %s (%d steps, image %s %s)\n", r.Source, r.Dir, r.Steps, r.Image, r.ImageState)
	}
	if len(r.Replacements) > 0 {
		fmt.Fprintf(s.Out, "  %d line(s) replaced by offline equivalents:\n", len(r.Replacements))
		for _, rep := range r.Replacements {
			fmt.Fprintf(s.Out, "  %s\n", rep)
		}
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(s.ErrOut, "warning: %s\n", w)
	}
}
