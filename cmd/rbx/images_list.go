package main

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"

	cerrdefs "github.com/containerd/errdefs"

	"github.com/rbx-sandbox/rbx/images"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
)

// runImagesList prints each recipe with its image's state on the engine:
// present, outdated (older than its recipe: rebuilt by `rbx images build`),
// missing, or unknown when no engine answers.
func runImagesList(ctx context.Context, s Streams, log *slog.Logger) error {
	var inspect func(ref string) (int, error)
	if err := docker.Available(ctx); err != nil {
		fmt.Fprintf(s.ErrOut, "warning: no container engine answered (%v); image state unknown\n", err)
	} else {
		rt, err := docker.New(docker.WithLogger(log))
		if err != nil {
			return err
		}
		defer rt.Close()
		inspect = func(ref string) (int, error) {
			info, err := rt.Client().ImageInspect(ctx, ref)
			if err != nil {
				return 0, err
			}
			v := 0
			if info.Config != nil {
				v, _ = strconv.Atoi(info.Config.Labels[images.LabelRecipeVersion])
			}
			return v, nil
		}
	}
	for _, r := range images.Recipes() {
		state := "unknown"
		if inspect != nil {
			v, err := inspect(r.Name)
			switch {
			case cerrdefs.IsNotFound(err):
				state = "missing"
			case err != nil:
				return fmt.Errorf("inspect image %s: %w", r.Name, err)
			case v < r.Version:
				state = "outdated"
			default:
				state = "present"
			}
		}
		fmt.Fprintf(s.Out, "%-24s %-9s %s\n", r.Name, state, r.Description)
	}
	return nil
}
