package containerd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"syscall"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// writableDirs are the only writable paths of a read-only root, as on the
// docker backend: the workdir and /tmp.
func writableDirs(workdir string) []string { return []string{workdir, "/tmp"} }

// readOnlyOpts mounts the root read-only with a tmpfs of Limits.DiskBytes
// at each writable path (the workdir the user's when there is one), so
// that what a sandbox writes is bounded; tmpfs pages count against the
// memory limit.
func readOnlyOpts(spec sandbox.Spec, ids *sandbox.UserIDs) []oci.SpecOpts {
	size := "size=" + strconv.FormatInt(spec.Limits.DiskBytes, 10)
	workdir := "mode=0755"
	if ids != nil {
		workdir += fmt.Sprintf(",uid=%d,gid=%d", ids.UID, ids.GID)
	}
	dirs := writableDirs(spec.Workdir)
	opts := []string{workdir, "mode=1777"}
	mounts := make([]specs.Mount, len(dirs))
	for i, d := range dirs {
		mounts[i] = specs.Mount{Destination: d, Type: "tmpfs", Source: "tmpfs",
			Options: []string{"nosuid", "nodev", size, opts[i]}}
	}
	return []oci.SpecOpts{oci.WithRootFSReadonly(), oci.WithMounts(mounts)}
}

// seedWritable copies what the image holds at the writable paths of a
// read-only root into their tmpfs, in the started sandbox s, with the
// image's owners and modes (a tmpfs mounted over them would hide it). The
// tmpfs roots keep the owner and mode they were mounted with.
func (s *Sandbox) seedWritable(ctx context.Context, img client.Image) error {
	dst, err := s.openRoot(ctx)
	if err != nil {
		return err
	}
	defer dst.Close()
	return s.rt.withImageFS(ctx, img, func(src *os.Root) error {
		for _, dir := range writableDirs(s.workdir) {
			name := dir[1:]
			if fi, err := src.Lstat(name); err != nil || !fi.IsDir() {
				continue // not a directory in the image: the tmpfs starts empty
			}
			if err := copyTree(src, dst, name); err != nil {
				return fmt.Errorf("copy the image's %s: %w", dir, err)
			}
		}
		return nil
	})
}

// copyTree copies the contents of dir from src to dst: directories,
// regular files and symlinks, with their modes and owners (a hard link
// becomes a copy; devices and fifos are left out).
func copyTree(src, dst *os.Root, dir string) error {
	return fs.WalkDir(src.FS(), dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		fi, err := src.Lstat(p)
		if err != nil {
			return err
		}
		st, _ := fi.Sys().(*syscall.Stat_t)
		switch {
		case fi.IsDir():
			if err := dst.Mkdir(p, fi.Mode().Perm()); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := src.Readlink(p)
			if err != nil {
				return err
			}
			if err := dst.Symlink(target, p); err != nil {
				return err
			}
		case fi.Mode().IsRegular():
			if err := copyFile(src, dst, p, fi.Mode().Perm()); err != nil {
				return err
			}
		default:
			return nil
		}
		if st != nil {
			if err := dst.Lchown(p, int(st.Uid), int(st.Gid)); err != nil {
				return err
			}
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return dst.Chmod(p, fi.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky))
		}
		return nil
	})
}

func copyFile(src, dst *os.Root, p string, perm fs.FileMode) error {
	in, err := src.Open(p)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := dst.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}
