package containerd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/core/mount"
	"github.com/opencontainers/image-spec/identity"
)

// withImageFS runs fn with the image's root filesystem, as it is, mounted
// read-only on the host (see withImageDir), opened as an os.Root.
func (r *Runtime) withImageFS(ctx context.Context, img client.Image, fn func(root *os.Root) error) error {
	return r.withImageDir(ctx, img, func(dir string) error {
		root, err := os.OpenRoot(dir)
		if err != nil {
			return err
		}
		defer root.Close()
		return fn(root)
	})
}

// withImageDir runs fn with the image's root filesystem, as it is, mounted
// read-only on the host at dir: a view snapshot of the image's layers
// (never a sandbox's own snapshot, which a running container writes),
// removed after. ctx should hold a lease, so that a crash leaves the view
// to containerd's garbage collector.
func (r *Runtime) withImageDir(ctx context.Context, img client.Image, fn func(dir string) error) (err error) {
	diffIDs, err := img.RootFS(ctx)
	if err != nil {
		return fmt.Errorf("read image %s: %w", img.Name(), engineErr(err))
	}
	sn := r.cli.SnapshotService(r.snapshotter)
	key := "rbx-view-" + randomHex(8)
	mounts, err := sn.View(ctx, key, identity.ChainID(diffIDs).String())
	if err != nil {
		return fmt.Errorf("view image %s: %w", img.Name(), engineErr(err))
	}
	defer func() {
		if rerr := sn.Remove(context.WithoutCancel(ctx), key); rerr != nil {
			err = errors.Join(err, fmt.Errorf("remove view of image %s: %w", img.Name(), rerr))
		}
	}()
	return mount.WithReadonlyTempMount(ctx, mounts, fn)
}

// readSmall reads name under root, at most 4 MiB; a missing file reads as
// empty (an image without /etc/group).
func readSmall(root *os.Root, name string) (string, error) {
	f, err := root.Open(name)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 4<<20))
	return string(b), err
}
