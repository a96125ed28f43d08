package docker

import (
	"context"
	"fmt"
	"sync"

	cerrdefs "github.com/containerd/errdefs"

	"github.com/rbx-sandbox/rbx/images"
	"github.com/rbx-sandbox/rbx/sandbox"
)

var _ sandbox.ImageStore = (*Runtime)(nil)

// imageBuilder builds recipe images for one Runtime: one images.Builder,
// made on first use, so that concurrent EnsureImage calls for one name
// build once.
type imageBuilder struct {
	once sync.Once
	b    *images.Builder
	err  error
}

// ImagePresent reports whether ref exists in the engine; nothing is pulled.
func (r *Runtime) ImagePresent(ctx context.Context, ref string) (bool, error) {
	_, err := r.cli.ImageInspect(ctx, ref)
	switch {
	case err == nil:
		return true, nil
	case cerrdefs.IsNotFound(err):
		return false, nil
	case connLost(err):
		return false, fmt.Errorf("inspect image %s: %w: %w", ref, sandbox.ErrUnavailable, err)
	}
	return false, fmt.Errorf("inspect image %s: %w", ref, err)
}

// EnsureImage builds the rbx/* recipe image ref when it is missing or older
// than its recipe (see images.Builder.Ensure); status lines go to the
// writer of WithProgress.
func (r *Runtime) EnsureImage(ctx context.Context, ref string) (bool, error) {
	r.builder.once.Do(func() {
		r.builder.b, r.builder.err = images.NewBuilder(r.cli, images.WithLogger(r.log), images.WithProgress(r.progress))
	})
	if r.builder.err != nil {
		return false, r.builder.err
	}
	built, err := r.builder.b.Ensure(ctx, ref)
	return built, engineErr(err)
}

// BuildImage builds the Dockerfile in contextDir as tag through the Engine
// API unless tag exists (see images.BuildTask); build output goes to the
// writer of WithProgress.
func (r *Runtime) BuildImage(ctx context.Context, contextDir, tag string) (bool, error) {
	built, err := images.BuildTask(ctx, r.cli, contextDir, tag, r.progress)
	return built, engineErr(err)
}

// ImageLabels returns the labels of the local image ref; present is false
// when the engine has no such image.
func (r *Runtime) ImageLabels(ctx context.Context, ref string) (labels map[string]string, present bool, err error) {
	info, err := r.cli.ImageInspect(ctx, ref)
	switch {
	case cerrdefs.IsNotFound(err):
		return nil, false, nil
	case err != nil && connLost(err):
		return nil, false, fmt.Errorf("inspect image %s: %w: %w", ref, sandbox.ErrUnavailable, err)
	case err != nil:
		return nil, false, fmt.Errorf("inspect image %s: %w", ref, err)
	}
	if info.Config != nil {
		labels = info.Config.Labels
	}
	return labels, true, nil
}
