package containerd

import (
	"context"
	"fmt"
	"os"

	"github.com/containerd/containerd/v2/client"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// userIDs resolves spec.User for img to numeric ids: "uid:gid" directly
// (a bare uid is "uid:uid", see sandbox.NormalUser), names from the
// image's own /etc/passwd and /etc/group (never the host's), once per
// image and user. nil means no user was asked for: the image's runs.
func (r *Runtime) userIDs(ctx context.Context, img client.Image, user string) (*sandbox.UserIDs, error) {
	if user == "" {
		return nil, nil
	}
	user = sandbox.NormalUser(user)
	if ids, ok := sandbox.NumericUser(user); ok {
		return &ids, nil
	}
	key := img.Target().Digest.String() + "\x00" + user
	if ids, ok := r.users.Load(key); ok {
		return ids.(*sandbox.UserIDs), nil
	}
	var ids sandbox.UserIDs
	err := r.withImageFS(ctx, img, func(root *os.Root) error {
		passwd, err := readSmall(root, "etc/passwd")
		if err != nil {
			return err
		}
		group, err := readSmall(root, "etc/group")
		if err != nil {
			return err
		}
		ids, err = sandbox.ResolveUser(user, passwd, group)
		if err != nil {
			return fmt.Errorf("%w: %w", sandbox.ErrInvalidSpec, err)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("resolve user %q: %w", user, err)
	}
	r.users.Store(key, &ids)
	return &ids, nil
}

// giveWorkdir makes the workdir of the started sandbox s the user's, from
// the host (a process in the container has no capability to chown): its
// missing parents are created as root's (0755), the workdir itself is
// created or given to ids. A read-only root's workdir is a tmpfs mounted
// with ids instead.
func (s *Sandbox) giveWorkdir(ctx context.Context, ids *sandbox.UserIDs) error {
	name := s.resolve(s.workdir)[1:]
	if name == "" {
		return nil // never give away "/"
	}
	root, err := s.openRoot(ctx)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := root.MkdirAll(name, 0o755); err != nil {
		return fmt.Errorf("create workdir %s: %w", s.workdir, err)
	}
	if err := root.Lchown(name, ids.UID, ids.GID); err != nil {
		return fmt.Errorf("give workdir %s to %d:%d: %w", s.workdir, ids.UID, ids.GID, err)
	}
	return nil
}
