package images

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
)

// ImageAPI is the part of the Engine API client the builder uses.
type ImageAPI interface {
	ImageInspect(ctx context.Context, ref string, opts ...client.ImageInspectOption) (image.InspectResponse, error)
	ImageImport(ctx context.Context, src image.ImportSource, ref string, opts image.ImportOptions) (io.ReadCloser, error)
	ImageBuild(ctx context.Context, buildContext io.Reader, options build.ImageBuildOptions) (build.ImageBuildResponse, error)
}

// Builder builds recipe images on demand and imports them into the engine.
type Builder struct {
	cli     ImageAPI
	cfg     config
	recipes []Recipe

	mu    sync.Mutex
	locks map[string]chan struct{} // one build at a time per image name
	aptMu sync.Mutex               // dpkg holds a global lock anyway
}

// NewBuilder returns a Builder that imports into cli.
func NewBuilder(cli ImageAPI, opts ...Option) (*Builder, error) {
	cfg := config{log: slog.New(slog.DiscardHandler), progress: io.Discard, mirror: DefaultMirror}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, fmt.Errorf("image builder: %w", err)
		}
	}
	if cfg.cacheDir == "" {
		dir, err := defaultCacheDir()
		if err != nil {
			return nil, fmt.Errorf("image builder: %w", err)
		}
		cfg.cacheDir = dir
	}
	return &Builder{cli: cli, cfg: cfg, recipes: recipes, locks: map[string]chan struct{}{}}, nil
}

// Ensure makes sure the image name exists locally and is built from the
// current recipe version, building and importing it otherwise. It reports
// whether it built. Concurrent calls for one name build once; the others
// wait and then find the image.
func (b *Builder) Ensure(ctx context.Context, name string) (built bool, err error) {
	r, ok := lookupIn(b.recipes, name)
	if !ok {
		return false, fmt.Errorf("ensure image %q: %w", name, ErrUnknownRecipe)
	}
	unlock, err := b.lock(ctx, r.Name)
	if err != nil {
		return false, fmt.Errorf("ensure image %q: %w", r.Name, err)
	}
	defer unlock()

	var digest string
	if r.Base != "" {
		if _, err := b.Ensure(ctx, r.Base); err != nil {
			return false, fmt.Errorf("ensure image %q: base: %w", r.Name, err)
		}
		if digest, err = b.toolchainDigest(ctx, r); err != nil {
			return false, fmt.Errorf("ensure image %q: %w", r.Name, err)
		}
	}
	current, err := b.upToDate(ctx, r, digest)
	if err != nil || current {
		return false, err
	}
	start := time.Now()
	b.status("building %s (recipe v%d)", r.Name, r.Version)
	var id string
	if r.Base != "" {
		id, err = b.buildToolchain(ctx, r, digest)
	} else {
		id, err = b.build(ctx, r)
	}
	if err != nil {
		return false, fmt.Errorf("build image %q: %w", r.Name, err)
	}
	b.status("built %s (%s) in %s", r.Name, shortID(id), time.Since(start).Round(time.Millisecond))
	return true, nil
}

func (b *Builder) lock(ctx context.Context, name string) (func(), error) {
	b.mu.Lock()
	ch, ok := b.locks[name]
	if !ok {
		ch = make(chan struct{}, 1)
		b.locks[name] = ch
	}
	b.mu.Unlock()
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// upToDate reports whether the image exists with a recipe version label at
// least r.Version and, for a toolchain recipe, the digest of what it is
// built from. An image without the labels (made by hand) is rebuilt.
func (b *Builder) upToDate(ctx context.Context, r Recipe, digest string) (bool, error) {
	info, err := b.cli.ImageInspect(ctx, r.Name)
	if cerrdefs.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("inspect image %q: %w", r.Name, err)
	}
	var have int
	var haveDigest string
	if info.Config != nil {
		have, _ = strconv.Atoi(info.Config.Labels[LabelRecipeVersion])
		haveDigest = info.Config.Labels[LabelRecipeDigest]
	}
	if have >= r.Version && haveDigest == digest {
		return true, nil
	}
	b.cfg.log.Info("image is older than its recipe", "image", r.Name, "have", have, "want", r.Version)
	return false, nil
}

func (b *Builder) status(format string, args ...any) {
	fmt.Fprintf(b.cfg.progress, format+"\n", args...)
}

func shortID(id string) string {
	if len(id) > 19 {
		return id[:19]
	}
	return id
}
