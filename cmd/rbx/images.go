package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/docker/docker/client"
	"github.com/spf13/cobra"

	"github.com/rbx-sandbox/rbx/images"
	"github.com/rbx-sandbox/rbx/recycle"
	"github.com/rbx-sandbox/rbx/sandbox"
)

func newImagesCmd(s Streams, logger func() *slog.Logger) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "images",
		Short: "Build and list the locally built base images (no registry needed)",
	}
	var optional, all bool
	build := &cobra.Command{
		Use:   "build [NAME...]",
		Short: "Build recipe images that are missing (default: the base images)",
		Long: `Build recipe images that are missing or older than their recipe.

Without names it builds the base images (rbx/busybox, rbx/debian:bookworm):
what the bundled examples and the demo use. The toolchain images
(rbx/buildpack-deps, rbx/deveval: gigabytes, minutes to build) are built
when a command needs one (rbx import of a task that names it), by name
here, or with --all.`,
		Example: `  rbx images build                      # rbx/busybox and rbx/debian:bookworm
  rbx images build rbx/buildpack-deps:bookworm
  rbx images build --all                # the toolchain images too
  rbx images build rbx/agent            # rbx/agent:<sha>, for Kubernetes pods recycled in place`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if all && len(args) > 0 {
				return usageError("--all and image names: give one or the other")
			}
			return runImagesBuild(cmd.Context(), s, logger(), args, optional, all)
		},
	}
	build.Flags().BoolVar(&optional, "if-engine", false, "without a container engine, warn and succeed (the local runtime needs no images)")
	build.Flags().BoolVar(&all, "all", false, "build every recipe, the toolchain images too")
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

func runImagesBuild(ctx context.Context, s Streams, log *slog.Logger, names []string, optional, all bool) error {
	if len(names) == 0 {
		for _, r := range images.Recipes() {
			if all || r.Base == "" {
				names = append(names, r.Name)
			}
		}
	}
	for _, n := range names {
		if _, ok := images.Lookup(n); !ok && n != recycle.AgentImageRepo {
			return usageError("image %q: no such recipe (see rbx images list)", n)
		}
	}
	rt, err := openImageStore(ctx, log, s.ErrOut)
	if errors.Is(err, sandbox.ErrUnavailable) && optional {
		fmt.Fprintf(s.ErrOut, "warning: no container engine answered (%v); no images built, the local runtime will be used\n", err)
		return nil
	}
	if err != nil {
		return fmt.Errorf("build images: %w", err)
	}
	defer rt.Close()
	for _, n := range names {
		start := time.Now()
		if n == recycle.AgentImageRepo {
			ref, err := buildAgentImage(ctx, rt)
			if err != nil {
				return fmt.Errorf("build %s: %w", n, err)
			}
			fmt.Fprintf(s.Out, "%-24s %s\n", ref, "present")
			continue
		}
		built, err := rt.EnsureImage(ctx, n)
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

// buildAgentImage builds the agent image of the rbx-agent beside rbx (or
// $RBX_AGENT) in the Docker engine: what Kubernetes pods recycled in place
// get their agent from (docs/kubernetes.md).
func buildAgentImage(ctx context.Context, rt imageRuntime) (string, error) {
	path, err := recycle.FindAgent()
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	d, ok := rt.(interface{ Client() *client.Client })
	if !ok {
		return "", fmt.Errorf("the %s runtime: the agent image is built by the Docker engine", rt.Name())
	}
	return images.BuildAgent(ctx, d.Client(), data)
}

// imageRuntime is a runtime that keeps images.
type imageRuntime interface {
	sandbox.Runtime
	sandbox.ImageStore
}

// openImageStore returns the first backend that keeps images and answers;
// the error wraps sandbox.ErrUnavailable when none does.
func openImageStore(ctx context.Context, log *slog.Logger, progress io.Writer) (imageRuntime, error) {
	rt, _, err := sandbox.Detect(ctx, engineBackends(log, progress)...)
	if err != nil {
		return nil, err
	}
	store, ok := rt.(imageRuntime)
	if !ok {
		rt.Close()
		return nil, fmt.Errorf("runtime %s: %w: keeps no images", rt.Name(), sandbox.ErrUnavailable)
	}
	return store, nil
}
