package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/rbx-sandbox/rbx/images"
	"github.com/rbx-sandbox/rbx/sandbox"
)

// runtimeFlags are the flags every command that creates sandboxes shares.
type runtimeFlags struct {
	name       string
	buildImage bool
}

func (f *runtimeFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.name, "runtime", "auto", "sandbox backend: auto (docker if an engine answers, else local), docker or local")
	cmd.Flags().BoolVar(&f.buildImage, "build-images", true, "build a missing rbx/* base image before use")
}

// openRuntime returns the chosen backend. With "auto" it takes the first
// backend that answers (see backends) and, when that is not the first one,
// says so in one line: the fallback lowers isolation.
func openRuntime(ctx context.Context, f runtimeFlags, errOut io.Writer, log *slog.Logger) (sandbox.Runtime, error) {
	all := backends(log, errOut)
	switch f.name {
	case "docker", "local":
		return sandbox.Open(ctx, f.name, all...)
	case "auto", "":
		// docker.Available bounds its own probe (3 s).
		rt, skipped, err := sandbox.Detect(ctx, all...)
		if err != nil {
			return nil, err
		}
		for _, s := range skipped {
			fmt.Fprintf(errOut, "warning: no container engine answered (%v); using the %s runtime: plain processes, NOT isolated\n", s.Err, rt.Name())
		}
		return rt, nil
	}
	return nil, usageError("--runtime %q: expected auto, docker or local", f.name)
}

// ensureImage builds a missing rbx/* recipe image on a runtime that keeps
// images, so that a first `rbx replay` on a fresh machine just works.
func ensureImage(ctx context.Context, rt sandbox.Runtime, f runtimeFlags, image string) error {
	store, ok := rt.(sandbox.ImageStore)
	if !ok || image == "" {
		return nil
	}
	if _, known := images.Lookup(image); !known || !f.buildImage {
		return nil
	}
	if _, err := store.EnsureImage(ctx, image); err != nil {
		return fmt.Errorf("build image %s: %w", image, err)
	}
	return nil
}

// removeSandbox removes sb even when ctx was cancelled (Ctrl-C): cleanup must
// survive the cancellation that triggered it.
func removeSandbox(ctx context.Context, sb sandbox.Sandbox) error {
	if sb == nil {
		return nil
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := sb.Remove(cctx); err != nil && !errors.Is(err, sandbox.ErrNotFound) {
		return fmt.Errorf("remove sandbox %s: %w", sb.ID(), err)
	}
	return nil
}
