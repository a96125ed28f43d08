package docker

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/docker/docker/api/types/container"

	"github.com/rbx-sandbox/rbx/recycle/agent"
	"github.com/rbx-sandbox/rbx/sandbox"
)

// baselines are the never-started containers, one per image, whose files
// the daemon reads to restore a recycled sandbox: the image's content as
// the engine holds it, never the sandbox's.
type baselines struct {
	mu     sync.Mutex
	ids    map[string]string // image id → container id
	listed map[string]bool   // image ids a full fresh listing was taken of
	// full, fps and scoped count the fresh listings taken whole, as
	// fingerprints of a whole walk, and by a scoped walk.
	full, fps, scoped int
	// taking holds, per image, the channel closed when the sandbox taking
	// its whole listing is done (see takeListing).
	taking map[string]chan struct{}
}

// takeListing waits while another sandbox takes image's whole fresh
// listing: the sandboxes of an image created together (a pool filling)
// would otherwise each walk the whole image, where all but one can list
// only their upper layer once it is held. It returns a release func when
// this sandbox must take the whole listing itself (none held, none under
// way), nil when the listing is held.
func (r *Runtime) takeListing(ctx context.Context, image string) (func(), error) {
	b := &r.baselines
	for {
		b.mu.Lock()
		if r.fresh.Kept(image) {
			b.mu.Unlock()
			return nil, nil
		}
		ch, busy := b.taking[image]
		if !busy {
			if b.taking == nil {
				b.taking = map[string]chan struct{}{}
			}
			ch = make(chan struct{})
			b.taking[image] = ch
			b.mu.Unlock()
			return func() {
				b.mu.Lock()
				delete(b.taking, image)
				b.mu.Unlock()
				close(ch)
			}, nil
		}
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, fmt.Errorf("wait for the fresh listing of %s: %w", image, ctx.Err())
		}
	}
}

// listingKind is how a fresh listing was taken.
type listingKind int

const (
	listingWhole  listingKind = iota // every entry sent
	listingFPs                       // a whole walk, sent as fingerprints
	listingScoped                    // the upper layer's directories and the other mounts only
)

// FreshListings reports how many recyclable sandboxes' fresh listings were
// taken whole (the first of an image or of a new shape), how many as
// fingerprints of a whole walk against a shared listing, and how many by a
// walk scoped by the upper layer (the image's listing held).
func (r *Runtime) FreshListings() (full, fingerprints, scoped int) {
	b := &r.baselines
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.full, b.fps, b.scoped
}

func (r *Runtime) countListing(k listingKind) {
	b := &r.baselines
	b.mu.Lock()
	defer b.mu.Unlock()
	switch k {
	case listingWhole:
		b.full++
	case listingFPs:
		b.fps++
	default:
		b.scoped++
	}
}

// listed reports whether a full fresh listing of image was taken (then a
// fresh sandbox of it sends fingerprints first); mark records one.
func (r *Runtime) listed(image string, mark bool) bool {
	b := &r.baselines
	b.mu.Lock()
	defer b.mu.Unlock()
	if mark {
		if b.listed == nil {
			b.listed = map[string]bool{}
		}
		b.listed[image] = true
	}
	return b.listed[image]
}

// baselineFor returns the baseline container of image, creating it on
// first use. It carries rbx's labels (rbx gc removes it when its owner
// died) and rbx.role=baseline; Close removes it.
func (r *Runtime) baselineFor(ctx context.Context, image string) (string, error) {
	b := &r.baselines
	b.mu.Lock()
	defer b.mu.Unlock()
	if id, ok := b.ids[image]; ok {
		return id, nil
	}
	labels := r.volumeLabels(sandbox.Spec{})
	labels[LabelRole] = "baseline"
	ctr, err := r.cli.ContainerCreate(ctx, &container.Config{Image: image, Entrypoint: []string{"/bin/true"}, Labels: labels},
		&container.HostConfig{NetworkMode: sandbox.NetworkNone}, nil, nil, newName())
	if err != nil {
		return "", fmt.Errorf("baseline container of %s: %w", image, engineErr(err))
	}
	if b.ids == nil {
		b.ids = map[string]string{}
	}
	b.ids[image] = ctr.ID
	return ctr.ID, nil
}

// removeBaselines removes every baseline container (Runtime.Close).
func (r *Runtime) removeBaselines(ctx context.Context) error {
	b := &r.baselines
	b.mu.Lock()
	defer b.mu.Unlock()
	var errs []error
	for img, id := range b.ids {
		if err := r.cli.ContainerRemove(ctx, id, container.RemoveOptions{Force: true}); err != nil {
			errs = append(errs, fmt.Errorf("remove baseline container %s: %w", id, engineErr(err)))
		}
		delete(b.ids, img)
	}
	return errors.Join(errs...)
}

// openFile opens the regular file want.Path in container id through the
// archive API and checks it is want's shape (type, mode, owner, size).
func (r *Runtime) openFile(ctx context.Context, id string, want agent.Entry) (io.ReadCloser, error) {
	rc, _, err := r.cli.CopyFromContainer(ctx, id, string(want.Path))
	if err != nil {
		return nil, fmt.Errorf("read %q: %w", want.Path, engineErr(err))
	}
	tr := tar.NewReader(rc)
	h, err := tr.Next()
	if err == nil && (h.Typeflag != tar.TypeReg || h.Size != want.Size || uint32(h.Mode)&0o7777 != want.Mode ||
		h.Uid != int(want.UID) || h.Gid != int(want.GID)) {
		err = fmt.Errorf("not the fresh file (type %c size %d mode %o owner %d:%d)", h.Typeflag, h.Size, h.Mode, h.Uid, h.Gid)
	}
	if err != nil {
		rc.Close()
		return nil, fmt.Errorf("read %q: %w", want.Path, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{tr, rc}, nil
}
