package containerd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// WriteFiles writes every file from the host, into the container's root
// as its processes see it (rootPath: on runc /proc/<pid>/root, mounts
// included), through os.Root: no program runs in the container, so what a
// step did to its shell, its PATH or the image's tools cannot alter the
// files, and a symlink a step planted cannot lead a write outside the container (os.Root
// refuses links that leave the root, absolute ones included). Each file is
// written to a temporary name and renamed over the target, so a symlink at
// the target is replaced, not followed. Files and the directories created
// for them belong to the container's user; existing directories are left
// alone. Mode 0 means 0644. This needs rbx on the daemon's host, as root,
// which the exec streams (FIFOs) need anyway.
func (s *Sandbox) WriteFiles(ctx context.Context, files []sandbox.File) error {
	if len(files) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("write %d files in %s: %w", len(files), s.id, err)
	}
	root, err := s.openRoot(ctx)
	if err != nil {
		return fmt.Errorf("write %d files in %s: %w", len(files), s.id, err)
	}
	defer root.Close()
	uid, gid := int(s.process.User.UID), int(s.process.User.GID)
	for _, f := range files {
		name := strings.TrimPrefix(s.resolve(f.Path), "/")
		if name == "" {
			return fmt.Errorf("write %q in %s: not a file path", f.Path, s.id)
		}
		mode := f.Mode.Perm()
		if mode == 0 {
			mode = 0o644
		}
		if err := writeIn(root, name, f.Data, mode, uid, gid); err != nil {
			return fmt.Errorf("write %s in %s: %w", f.Path, s.id, err)
		}
	}
	return nil
}

// openRoot opens the container's root as its processes see it (see
// rootPath).
func (s *Sandbox) openRoot(ctx context.Context) (*os.Root, error) {
	p, err := s.rootPath()
	if err != nil {
		return nil, s.gone(ctx, err)
	}
	root, err := os.OpenRoot(p)
	if err != nil {
		return nil, s.gone(ctx, err)
	}
	// The pid is only the container's while its task runs: check after
	// opening, so a recycled pid cannot have given another process's root.
	if err := s.checkRunning(context.WithoutCancel(ctx)); err != nil {
		root.Close()
		return nil, err
	}
	return root, nil
}

// writeIn writes data at name under root, owned by uid:gid, creating the
// missing parent directories (0755, same owner).
func writeIn(root *os.Root, name string, data []byte, mode fs.FileMode, uid, gid int) error {
	if err := mkdirs(root, path.Dir(name), uid, gid); err != nil {
		return err
	}
	tmp := name + ".rbx-" + randomHex(4)
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	err = errors.Join(err, f.Close(), root.Chmod(tmp, mode), root.Lchown(tmp, uid, gid))
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		_ = root.Remove(tmp)
	}
	return err
}

// mkdirs creates each missing directory of dir, outermost first.
func mkdirs(root *os.Root, dir string, uid, gid int) error {
	if dir == "." || dir == "" {
		return nil
	}
	p := ""
	for _, part := range strings.Split(dir, "/") {
		p = path.Join(p, part)
		err := root.Mkdir(p, 0o755)
		switch {
		case errors.Is(err, fs.ErrExist):
			continue
		case err != nil:
			return err
		}
		if err := root.Lchown(p, uid, gid); err != nil {
			return err
		}
	}
	return nil
}
