package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// maxLinks bounds how many symlinks ReadFile follows.
const maxLinks = 8

// WriteFile writes data at p (relative paths resolve against the workdir),
// creating missing parent directories. mode 0 keeps the mode of an existing
// file (an edit must not drop the executable bit) and means 0644 for a new
// one. Files belong to the container's user.
func (s *Sandbox) WriteFile(ctx context.Context, p string, data []byte, mode fs.FileMode) error {
	p = s.resolve(p)
	if ok, err := s.writeViaSession(ctx, p, data, mode); ok {
		return err
	}
	if mode == 0 {
		mode = 0o644
		if st, err := s.rt.cli.ContainerStatPath(ctx, s.id, p); err == nil && st.Mode.IsRegular() {
			mode = st.Mode.Perm()
		}
	}
	// Extract at the deepest existing ancestor: a tar entry for a directory
	// that exists would reset its mode and owner (think /tmp).
	base, missing, err := s.existingAncestor(ctx, path.Dir(p))
	if err != nil {
		return fmt.Errorf("write %s in %s: %w", p, s.id, err)
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(p, base), "/")
	archive, err := tarFile(missing, rel, data, mode, s.owner)
	if err != nil {
		return fmt.Errorf("write %s in %s: %w", p, s.id, err)
	}
	err = s.rt.cli.CopyToContainer(ctx, s.id, base, archive, s.copyOptions())
	if err != nil {
		return fmt.Errorf("write %s in %s: %w", p, s.id, s.gone(ctx, err))
	}
	return nil
}

// existingAncestor walks up from dir to the first path that exists and
// returns it with the missing directories below it, relative to it and
// outermost first.
func (s *Sandbox) existingAncestor(ctx context.Context, dir string) (string, []string, error) {
	var missing []string
	for d := dir; ; d = path.Dir(d) {
		st, err := s.rt.cli.ContainerStatPath(ctx, s.id, d)
		if err == nil {
			if !st.Mode.IsDir() && st.Mode&fs.ModeSymlink == 0 {
				return "", nil, fmt.Errorf("%s: not a directory", d)
			}
			for i, m := range missing {
				missing[i] = strings.TrimPrefix(strings.TrimPrefix(m, d), "/")
			}
			return d, missing, nil
		}
		if !cerrdefs.IsNotFound(err) || d == "/" {
			return "", nil, s.gone(ctx, err)
		}
		missing = append([]string{d}, missing...)
	}
}

// tarFile builds an archive of the directories dirs and the file name,
// owned by o (root when nil).
func tarFile(dirs []string, name string, data []byte, mode fs.FileMode, o *fileOwner) (io.Reader, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	now := time.Now()
	for _, d := range dirs {
		h := o.header(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755, ModTime: now})
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
	}
	h := o.header(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: int64(mode.Perm()), Size: int64(len(data)), ModTime: now})
	if err := tw.WriteHeader(h); err != nil {
		return nil, err
	}
	if _, err := tw.Write(data); err != nil {
		return nil, err
	}
	return &buf, tw.Close()
}

// ReadFile returns the content at p, following symlinks. A missing file
// returns an error wrapping sandbox.ErrNotFound.
func (s *Sandbox) ReadFile(ctx context.Context, p string) ([]byte, error) {
	p = s.resolve(p)
	if data, ok, err := s.readViaSession(ctx, p); ok {
		return data, err
	}
	for src, i := p, 0; i < maxLinks; i++ {
		data, target, err := s.readOnce(ctx, src)
		if err != nil {
			return nil, fmt.Errorf("read %s in %s: %w", p, s.id, err)
		}
		if target == "" {
			return data, nil
		}
		src = target
	}
	return nil, fmt.Errorf("read %s in %s: too many symlinks", p, s.id)
}

// readOnce returns the file at p, or the target when p is a symlink.
func (s *Sandbox) readOnce(ctx context.Context, p string) ([]byte, string, error) {
	rc, st, err := s.rt.cli.CopyFromContainer(ctx, s.id, p)
	if err != nil {
		if cerrdefs.IsNotFound(err) {
			if gerr := s.checkRunning(context.WithoutCancel(ctx)); gerr != nil {
				return nil, "", gerr
			}
		}
		return nil, "", engineErr(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	h, err := tr.Next()
	if errors.Is(err, io.EOF) {
		return nil, "", fmt.Errorf("%w: empty archive", sandbox.ErrNotFound)
	}
	if err != nil {
		return nil, "", err
	}
	switch h.Typeflag {
	case tar.TypeSymlink:
		return nil, st.LinkTarget, nil
	case tar.TypeReg:
		data, err := io.ReadAll(tr)
		return data, "", err
	}
	return nil, "", fmt.Errorf("not a regular file (%s)", st.Mode)
}
