package docker

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// withImageContainer runs fn with a container created (never started) from
// image, to read the image's files as they are, and removes it after. It
// carries rbx's labels, so `rbx gc` finds it if this process dies first.
func (r *Runtime) withImageContainer(ctx context.Context, image string, fn func(id string) error) error {
	ctr, err := r.cli.ContainerCreate(ctx, &container.Config{Image: image, Entrypoint: []string{"/bin/true"},
		Labels: r.volumeLabels(sandbox.Spec{})}, &container.HostConfig{NetworkMode: sandbox.NetworkNone}, nil, nil, newName())
	if err != nil {
		return fmt.Errorf("read image %s: %w", image, engineErr(err))
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
		defer cancel()
		if err := r.cli.ContainerRemove(rctx, ctr.ID, container.RemoveOptions{Force: true}); err != nil {
			r.log.Warn("remove image reader container", "id", ctr.ID, "err", err)
		}
	}()
	return fn(ctr.ID)
}

// seedTmpfs copies what the image holds at the writable paths of a
// read-only root (dirs) into the started container id, as the engine's
// volume copy-up would: the engine fills a tmpfs volume at create and
// unmounts it, losing the copy. Owners and modes are the image's.
func (r *Runtime) seedTmpfs(ctx context.Context, image, id string, dirs []string) error {
	return r.withImageContainer(ctx, image, func(src string) error {
		for _, dir := range dirs {
			if err := r.copyDir(ctx, src, id, dir); err != nil {
				return fmt.Errorf("copy the image's %s: %w", dir, err)
			}
		}
		return nil
	})
}

// copyDir copies the contents of dir from container src into dir of dst.
func (r *Runtime) copyDir(ctx context.Context, src, dst, dir string) error {
	rc, _, err := r.cli.CopyFromContainer(ctx, src, dir)
	if cerrdefs.IsNotFound(err) {
		return nil // not in the image: the tmpfs starts empty
	}
	if err != nil {
		return engineErr(err)
	}
	defer rc.Close()
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(stripTop(tar.NewReader(rc), tar.NewWriter(pw), path.Base(dir), engineFiles[dir]))
	}()
	err = r.cli.CopyToContainer(ctx, dst, dir, pr, container.CopyToContainerOptions{})
	_ = pr.CloseWithError(err)
	return engineErr(err)
}

// engineFiles are the files the engine bind-mounts into every container,
// by directory: the reader container has them too, and extracting them
// over the sandbox's own mounts fails ("device or resource busy").
var engineFiles = map[string][]string{"/etc": {"hostname", "hosts", "resolv.conf"}}

// stripTop rewrites an archive of directory top ("top/", "top/a"...) as
// one of its contents ("a"...), dropping top itself (the tmpfs's root
// keeps the owner and mode it was mounted with) and the entries in skip.
func stripTop(tr *tar.Reader, tw *tar.Writer, top string, skip []string) error {
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return tw.Close()
		}
		if err != nil {
			return err
		}
		name, ok := strings.CutPrefix(h.Name, top+"/")
		if !ok || name == "" || slices.Contains(skip, name) {
			continue
		}
		h.Name = name
		if h.Typeflag == tar.TypeLink {
			h.Linkname = strings.TrimPrefix(h.Linkname, top+"/")
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := io.Copy(tw, tr); err != nil {
			return err
		}
	}
}
