package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// WriteFiles writes all files with one archive extracted at "/" by the
// engine: never through the session shell (unlike WriteFile), so a step's
// PATH, functions or replaced tools cannot alter them. The archive holds
// file entries only: the engine creates missing parents (0755) and leaves
// existing directories alone. Files belong to the container's user.
func (s *Sandbox) WriteFiles(ctx context.Context, files []sandbox.File) error {
	if len(files) == 0 {
		return nil
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	now := time.Now()
	for _, f := range files {
		name := strings.TrimPrefix(s.resolve(f.Path), "/")
		if name == "" {
			return fmt.Errorf("write %q in %s: not a file path", f.Path, s.id)
		}
		mode := f.Mode.Perm()
		if mode == 0 {
			mode = 0o644
		}
		h := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: int64(mode), Size: int64(len(f.Data)), ModTime: now}
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("write %s in %s: %w", f.Path, s.id, err)
		}
		if _, err := tw.Write(f.Data); err != nil {
			return fmt.Errorf("write %s in %s: %w", f.Path, s.id, err)
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	err := s.rt.cli.CopyToContainer(ctx, s.id, "/", &buf, container.CopyToContainerOptions{CopyUIDGID: true})
	if err != nil {
		return fmt.Errorf("write %d files in %s: %w", len(files), s.id, s.gone(ctx, err))
	}
	return nil
}
