package images

import (
	"archive/tar"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// inode identifies a file across hard links.
type inode struct{ dev, ino uint64 }

// writeRootfsTar writes the tree under root as a tar stream with paths
// relative to root, keeping modes (with setuid/setgid/sticky), numeric
// owners, symlinks and hard links. Device nodes and sockets are skipped: the
// engine mounts its own /dev and a socket cannot be archived. Owner names are
// left empty on purpose: the host's user database means nothing inside the
// image, only numeric ids do.
func writeRootfsTar(ctx context.Context, w io.Writer, root string) error {
	tw := tar.NewWriter(w)
	seen := map[inode]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil || rel == "." {
			return err
		}
		return writeEntry(tw, path, filepath.ToSlash(rel), seen)
	})
	if err != nil {
		return fmt.Errorf("archive %s: %w", root, err)
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("archive %s: %w", root, err)
	}
	return nil
}

func writeEntry(tw *tar.Writer, path, name string, seen map[inode]string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	mode := fi.Mode()
	if mode&(fs.ModeDevice|fs.ModeCharDevice|fs.ModeSocket) != 0 {
		return nil
	}
	link := ""
	if mode&fs.ModeSymlink != 0 {
		if link, err = os.Readlink(path); err != nil {
			return err
		}
	}
	hdr, err := tar.FileInfoHeader(fi, link)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	hdr.Name, hdr.Uname, hdr.Gname = name, "", ""
	// Access and change times would only churn the tarball's bytes.
	hdr.AccessTime, hdr.ChangeTime = time.Time{}, time.Time{}
	if fi.IsDir() {
		hdr.Name += "/"
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		hdr.Uid, hdr.Gid = int(st.Uid), int(st.Gid)
		if mode.IsRegular() && st.Nlink > 1 {
			key := inode{uint64(st.Dev), uint64(st.Ino)}
			if first, ok := seen[key]; ok {
				hdr.Typeflag, hdr.Linkname, hdr.Size = tar.TypeLink, first, 0
			} else {
				seen[key] = name
			}
		}
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if hdr.Typeflag != tar.TypeReg || hdr.Size == 0 {
		return nil
	}
	return copyFile(tw, path, name)
}

func copyFile(w io.Writer, path, name string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := io.Copy(w, f); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
