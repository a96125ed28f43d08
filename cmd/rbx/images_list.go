package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"

	"github.com/rbx-sandbox/rbx/images"
)

// imageLabeler reads a local image's labels; the Docker backend implements
// it. The recipe version label tells a present image from an outdated one.
type imageLabeler interface {
	ImageLabels(ctx context.Context, ref string) (labels map[string]string, present bool, err error)
}

// runImagesList prints each recipe with its image's state on the engine:
// present, outdated (older than its recipe: rebuilt by `rbx images build`),
// missing, or unknown when no engine answers.
func runImagesList(ctx context.Context, s Streams, log *slog.Logger) error {
	var lab imageLabeler
	rt, err := openImageStore(ctx, log, io.Discard)
	if err != nil {
		fmt.Fprintf(s.ErrOut, "warning: no container engine answered (%v); image state unknown\n", err)
	} else {
		defer rt.Close()
		lab, _ = rt.(imageLabeler)
	}
	for _, r := range images.Recipes() {
		state := "unknown"
		if lab != nil {
			labels, present, err := lab.ImageLabels(ctx, r.Name)
			if err != nil {
				return fmt.Errorf("inspect image %s: %w", r.Name, err)
			}
			v, _ := strconv.Atoi(labels[images.LabelRecipeVersion])
			switch {
			case !present:
				state = "missing"
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
