package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// fileOwner is the numeric user and group of a sandbox with Spec.User: the
// owner of its workdir and of the files rbx writes there. rbx resolves it
// itself, from the image's /etc/passwd and /etc/group, because the engine
// cannot do it for us: its own lookup (CopyUIDGID) reads the host's passwd,
// and a root exec in a container whose user is not root has no
// capabilities under no-new-privileges, so it cannot chown.
type fileOwner struct{ uid, gid int }

// header sets h's owner to o; a nil o leaves it root's.
func (o *fileOwner) header(h *tar.Header) *tar.Header {
	if o != nil {
		h.Uid, h.Gid = o.uid, o.gid
	}
	return h
}

// copyOptions are the archive options of s's writes: with an owner, the
// archive's ids stand (the engine's CopyUIDGID would look the user up in
// the host's passwd); without, CopyUIDGID keeps the container's (root's).
func (s *Sandbox) copyOptions() container.CopyToContainerOptions {
	return container.CopyToContainerOptions{CopyUIDGID: s.owner == nil}
}

// imageOwner resolves user for image (an image id): "uid:gid" directly,
// names from a container created (never started) from the image, once
// per image and user.
func (r *Runtime) imageOwner(ctx context.Context, image, user string) (*fileOwner, error) {
	user = sandbox.NormalUser(user)
	if o, ok := numericOwner(user); ok {
		return o, nil
	}
	key := image + "\x00" + user
	if o, ok := r.owners.Load(key); ok {
		return o.(*fileOwner), nil
	}
	var o *fileOwner
	err := r.withImageContainer(ctx, image, func(id string) (err error) {
		o, err = r.lookupOwner(ctx, id, user)
		return err
	})
	if err != nil {
		return nil, err
	}
	r.owners.Store(key, o)
	return o, nil
}

// lookupOwner resolves user with the container's /etc/passwd and /etc/group.
func (r *Runtime) lookupOwner(ctx context.Context, id, user string) (*fileOwner, error) {
	if o, ok := numericOwner(user); ok {
		return o, nil
	}
	passwd, err := r.readContainerFile(ctx, id, "/etc/passwd")
	if err != nil {
		return nil, fmt.Errorf("resolve user %q: %w", user, err)
	}
	group, err := r.readContainerFile(ctx, id, "/etc/group")
	if err != nil {
		return nil, fmt.Errorf("resolve user %q: %w", user, err)
	}
	o, err := parseOwner(user, string(passwd), string(group))
	if err != nil {
		return nil, fmt.Errorf("resolve user %q: %w: %w", user, sandbox.ErrInvalidSpec, err)
	}
	return o, nil
}

// parseOwner resolves "user[:group]" against the image's files (see
// sandbox.ResolveUser).
func parseOwner(spec, passwd, group string) (*fileOwner, error) {
	ids, err := sandbox.ResolveUser(spec, passwd, group)
	if err != nil {
		return nil, err
	}
	return &fileOwner{uid: ids.UID, gid: ids.GID}, nil
}

// numericOwner parses "uid:gid".
func numericOwner(u string) (*fileOwner, bool) {
	ids, ok := sandbox.NumericUser(u)
	if !ok {
		return nil, false
	}
	return &fileOwner{uid: ids.UID, gid: ids.GID}, true
}

// readContainerFile reads a regular file of a container, started or not;
// a missing file reads as empty.
func (r *Runtime) readContainerFile(ctx context.Context, id, p string) ([]byte, error) {
	rc, _, err := r.cli.CopyFromContainer(ctx, id, p)
	if cerrdefs.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, engineErr(err))
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	if _, err := tr.Next(); err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	data, err := io.ReadAll(io.LimitReader(tr, 4<<20))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return data, nil
}

// giveWorkdir makes the workdir of container id o's: one directory entry
// extracted at "/" by the engine (which creates missing parents as root's).
// A read-only root's workdir is a tmpfs mounted with o's ids instead.
func (r *Runtime) giveWorkdir(ctx context.Context, id, workdir string, o *fileOwner) error {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	h := o.header(&tar.Header{Typeflag: tar.TypeDir, Name: strings.TrimPrefix(path.Clean(workdir), "/") + "/", Mode: 0o755, ModTime: time.Now()})
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := r.cli.CopyToContainer(ctx, id, "/", &buf, container.CopyToContainerOptions{}); err != nil {
		return fmt.Errorf("give workdir %s to %d:%d: %w", workdir, o.uid, o.gid, engineErr(err))
	}
	return nil
}

// volumeLabels mark rbx's helper resources (tmpfs volumes, user lookup
// containers) as rbx's.
func (r *Runtime) volumeLabels(spec sandbox.Spec) map[string]string {
	l := sandbox.ManagedLabels(spec.Labels)
	l[sandbox.LabelOwner] = r.owner
	return l
}
