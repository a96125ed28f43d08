package docker

import (
	"context"
	"fmt"
)

// ImageWorkdir returns the working directory ref's image declares (its
// WORKDIR; "" when it declares none). The ROCK API starts plain images'
// sandboxes there, as ROCK does.
func (r *Runtime) ImageWorkdir(ctx context.Context, ref string) (string, error) {
	img, err := r.cli.ImageInspect(ctx, ref)
	if err != nil {
		return "", fmt.Errorf("inspect image %s: %w", ref, err)
	}
	if img.Config == nil {
		return "", nil
	}
	return img.Config.WorkingDir, nil
}
