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
	"github.com/rbx-sandbox/rbx/sandbox/docker"
	"github.com/rbx-sandbox/rbx/sandbox/local"
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

// openRuntime returns the chosen backend. With "auto" it falls back to the
// local runtime with a one-line warning when no container engine answers.
func openRuntime(ctx context.Context, f runtimeFlags, errOut io.Writer, log *slog.Logger) (sandbox.Runtime, error) {
	switch f.name {
	case "docker":
		if err := docker.Available(ctx); err != nil {
			return nil, fmt.Errorf("runtime docker: %w", err)
		}
		return docker.New(docker.WithLogger(log))
	case "local":
		return local.New()
	case "auto", "":
		pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		err := docker.Available(pctx)
		cancel()
		if err == nil {
			return docker.New(docker.WithLogger(log))
		}
		fmt.Fprintf(errOut, "warning: no container engine answered (%v); using the local runtime: plain processes, NOT isolated\n", err)
		return local.New()
	}
	return nil, usageError("--runtime %q: expected auto, docker or local", f.name)
}

// ensureImage builds a missing rbx/* recipe image on the docker runtime, so
// that a first `rbx replay` on a fresh machine just works.
func ensureImage(ctx context.Context, rt sandbox.Runtime, f runtimeFlags, image string, errOut io.Writer, log *slog.Logger) error {
	d, ok := rt.(*docker.Runtime)
	if !ok || image == "" {
		return nil
	}
	if _, known := images.Lookup(image); !known || !f.buildImage {
		return nil
	}
	b, err := images.NewBuilder(d.Client(), images.WithLogger(log), images.WithProgress(errOut))
	if err != nil {
		return err
	}
	if _, err := b.Ensure(ctx, image); err != nil {
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
