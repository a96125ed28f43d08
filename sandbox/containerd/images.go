package containerd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/containerd/containerd/v2/client"
	cerrdefs "github.com/containerd/errdefs"
	"github.com/distribution/reference"

	"github.com/rbx-sandbox/rbx/sandbox"
)

var _ sandbox.ImageStore = (*Runtime)(nil)

// ImageSource is where images missing from the namespace come from, and
// where rbx's images are built: the Docker Engine (docker.Runtime
// implements it).
type ImageSource interface {
	sandbox.ImageStore
	// ImageID returns the content-addressed id of the local image ref;
	// present is false when there is none.
	ImageID(ctx context.Context, ref string) (id string, present bool, err error)
	// SaveImage streams ref as an image archive; the caller closes it.
	SaveImage(ctx context.Context, ref string) (io.ReadCloser, error)
}

// LabelSourceID is the image label holding the ImageSource's id of the
// image it was imported from: an import happens only when it differs.
const LabelSourceID = "rbx.source-id"

// normalize returns ref as containerd names images ("rbx/busybox:latest"
// is "docker.io/rbx/busybox:latest").
func normalize(ref string) (string, error) {
	named, err := reference.ParseDockerRef(ref)
	if err != nil {
		return "", fmt.Errorf("%w: image %q: %v", sandbox.ErrInvalidSpec, ref, err)
	}
	return named.String(), nil
}

// image returns ref from the namespace, unpacked for the snapshotter. It
// is imported from the image source first when missing, or when the
// source's copy has another id (rebuilt since). Without a source only what
// is in the namespace can be used.
func (r *Runtime) image(ctx context.Context, ref string) (client.Image, error) {
	name, err := normalize(ref)
	if err != nil {
		return nil, err
	}
	img, err := r.current(ctx, ref, name)
	if err != nil {
		return nil, err
	}
	unpacked, err := img.IsUnpacked(ctx, r.snapshotter)
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", ref, engineErr(err))
	}
	if !unpacked {
		if err := img.Unpack(ctx, r.snapshotter); err != nil {
			return nil, fmt.Errorf("unpack image %s for %s: %w", ref, r.snapshotter, engineErr(err))
		}
	}
	return img, nil
}

// current returns the namespace's image name: pulled first under
// PullAlways; else imported when the source has another (or the only)
// copy; else pulled when missing under PullMissing.
func (r *Runtime) current(ctx context.Context, ref, name string) (client.Image, error) {
	pull := r.pull.Effective(ref)
	if pull == sandbox.PullAlways {
		return r.pullImage(ctx, ref, name)
	}
	img, err := r.cli.GetImage(ctx, name)
	switch {
	case cerrdefs.IsNotFound(err):
		img = nil
	case err != nil:
		return nil, fmt.Errorf("image %s: %w", ref, engineErr(err))
	}
	if r.images == nil {
		switch {
		case img != nil:
			return img, nil
		case pull == sandbox.PullMissing:
			return r.pullImage(ctx, ref, name)
		}
		return nil, fmt.Errorf("%w: %s (not in containerd namespace %s, and no image source)", sandbox.ErrImageMissing, ref, r.namespace)
	}
	id, present, err := r.images.ImageID(ctx, ref)
	switch {
	case err != nil && img != nil:
		return img, nil // the source is away; the namespace's copy will do
	case err != nil:
		return nil, fmt.Errorf("image %s: not in containerd namespace %s, and its source fails: %w", ref, r.namespace, err)
	case !present && img == nil && pull == sandbox.PullMissing:
		return r.pullImage(ctx, ref, name)
	case !present && img == nil:
		return nil, fmt.Errorf("%w: %s", sandbox.ErrImageMissing, ref)
	case !present:
		return img, nil
	case img != nil && img.Labels()[LabelSourceID] == id:
		return img, nil
	}
	return r.importImage(ctx, ref, name, id)
}

// importImage copies ref from the source into the namespace, once at a
// time: a concurrent Create of the same image finds it imported.
func (r *Runtime) importImage(ctx context.Context, ref, name, id string) (client.Image, error) {
	r.importMu.Lock()
	defer r.importMu.Unlock()
	if img, err := r.cli.GetImage(ctx, name); err == nil && img.Labels()[LabelSourceID] == id {
		return img, nil
	}
	start := time.Now()
	fmt.Fprintf(r.progress, "importing image %s (%.19s) into containerd namespace %s\n", ref, id, r.namespace)
	rc, err := r.images.SaveImage(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("import image %s: %w", ref, err)
	}
	defer rc.Close()
	imgs, err := r.cli.Import(ctx, rc, client.WithImageLabels(map[string]string{LabelSourceID: id}))
	if err != nil {
		return nil, fmt.Errorf("import image %s: %w", ref, engineErr(err))
	}
	img, err := r.cli.GetImage(ctx, name)
	if err != nil {
		var names []string
		for _, i := range imgs {
			names = append(names, i.Name)
		}
		return nil, fmt.Errorf("import image %s: archive holds %v, not %s: %w", ref, names, name, engineErr(err))
	}
	r.log.Info("imported image", "ref", ref, "id", id, "took", time.Since(start))
	return img, nil
}

// ImagePresent reports whether ref can be used: it is in the namespace, or
// the image source has it (Create imports it). Nothing is pulled.
func (r *Runtime) ImagePresent(ctx context.Context, ref string) (bool, error) {
	ctx = r.ctx(ctx)
	name, err := normalize(ref)
	if err != nil {
		return false, err
	}
	if _, err := r.cli.GetImage(ctx, name); err == nil {
		return true, nil
	} else if !cerrdefs.IsNotFound(err) {
		return false, fmt.Errorf("image %s: %w", ref, engineErr(err))
	}
	if r.images == nil {
		return false, nil
	}
	_, present, err := r.images.ImageID(ctx, ref)
	return present, err
}

// EnsureImage builds the rbx/* recipe image ref in the image source when
// missing or stale, and imports it into the namespace; it reports whether
// anything was built or imported.
func (r *Runtime) EnsureImage(ctx context.Context, ref string) (bool, error) {
	if r.images == nil {
		return false, r.needSource(ctx, ref)
	}
	built, err := r.images.EnsureImage(ctx, ref)
	if err != nil {
		return built, err
	}
	return r.sync(ctx, ref, built)
}

// BuildImage builds the Dockerfile in contextDir as tag in the image source
// unless tag exists there, and imports it into the namespace.
func (r *Runtime) BuildImage(ctx context.Context, contextDir, tag string) (bool, error) {
	if r.images == nil {
		return false, r.needSource(ctx, tag)
	}
	built, err := r.images.BuildImage(ctx, contextDir, tag)
	if err != nil {
		return built, err
	}
	return r.sync(ctx, tag, built)
}

// sync imports ref when the namespace lacks the source's build of it.
func (r *Runtime) sync(ctx context.Context, ref string, built bool) (bool, error) {
	ctx = r.ctx(ctx)
	name, err := normalize(ref)
	if err != nil {
		return built, err
	}
	before, _ := r.cli.GetImage(ctx, name)
	img, err := r.image(ctx, ref)
	if err != nil {
		return built, err
	}
	return built || before == nil || before.Labels()[LabelSourceID] != img.Labels()[LabelSourceID], nil
}

// needSource is EnsureImage's answer without an image source: nothing can
// be built, so the image must be in the namespace already.
func (r *Runtime) needSource(ctx context.Context, ref string) error {
	if _, err := r.image(r.ctx(ctx), ref); err != nil {
		if errors.Is(err, sandbox.ErrImageMissing) {
			return fmt.Errorf("%w (building images needs the Docker Engine as the containerd runtime's image source)", err)
		}
		return err
	}
	return nil
}
