package docker

import (
	"context"
	"fmt"
	"io"

	cerrdefs "github.com/containerd/errdefs"
)

// ImageID returns the content-addressed id of the local image ref;
// present is false when the engine has no such image. Other backends key
// the copies they import (see SaveImage) by it.
func (r *Runtime) ImageID(ctx context.Context, ref string) (id string, present bool, err error) {
	info, err := r.cli.ImageInspect(ctx, ref)
	switch {
	case cerrdefs.IsNotFound(err):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("inspect image %s: %w", ref, engineErr(err))
	}
	return info.ID, true, nil
}

// SaveImage streams the local image ref as an image archive (the `docker
// save` format, which containerd imports); the caller closes it.
func (r *Runtime) SaveImage(ctx context.Context, ref string) (io.ReadCloser, error) {
	rc, err := r.cli.ImageSave(ctx, []string{ref})
	if err != nil {
		return nil, fmt.Errorf("export image %s: %w", ref, engineErr(err))
	}
	return rc, nil
}
