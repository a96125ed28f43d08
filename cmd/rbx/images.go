package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/rbx-sandbox/rbx/images"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
)

func newImagesCmd(s Streams, logger func() *slog.Logger) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "images",
		Short: "Build and list the locally built base images (no registry needed)",
	}
	var optional bool
	build := &cobra.Command{
		Use:   "build [NAME...]",
		Short: "Build base images that are missing (default: all recipes)",
		Example: `  rbx images build                      # rbx/busybox and rbx/debian:bookworm
  rbx images build rbx/busybox`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runImagesBuild(cmd.Context(), s, logger(), args, optional)
		},
	}
	build.Flags().BoolVar(&optional, "if-engine", false, "without a container engine, warn and succeed (the local runtime needs no images)")
	cmd.AddCommand(build, &cobra.Command{
		Use:   "list",
		Short: "List the recipes and whether each image is present",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runImagesList(cmd.Context(), s, logger())
		},
	})
	return cmd
}

func runImagesBuild(ctx context.Context, s Streams, log *slog.Logger, names []string, optional bool) error {
	if len(names) == 0 {
		for _, r := range images.Recipes() {
			names = append(names, r.Name)
		}
	}
	for _, n := range names {
		if _, ok := images.Lookup(n); !ok {
			return usageError("image %q: no such recipe (see rbx images list)", n)
		}
	}
	if err := docker.Available(ctx); err != nil {
		if optional {
			fmt.Fprintf(s.ErrOut, "warning: no container engine answered (%v); no images built, the local runtime will be used\n", err)
			return nil
		}
		return fmt.Errorf("build images: %w", err)
	}
	rt, err := docker.New(docker.WithLogger(log))
	if err != nil {
		return err
	}
	defer rt.Close()
	b, err := images.NewBuilder(rt.Client(), images.WithLogger(log), images.WithProgress(s.ErrOut))
	if err != nil {
		return err
	}
	for _, n := range names {
		start := time.Now()
		built, err := b.Ensure(ctx, n)
		if err != nil {
			return fmt.Errorf("build %s: %w", n, err)
		}
		state := "present"
		if built {
			state = "built in " + round(time.Since(start))
		}
		fmt.Fprintf(s.Out, "%-24s %s\n", n, state)
	}
	return nil
}
