package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// WriteFiles writes all files with one archive extracted at "/" by the
// engine (with a read-only root: one per writable mount, since the engine
// extracts nowhere else): never through the session shell (unlike
// WriteFile), so a step's PATH, functions or replaced tools cannot alter
// them. The archive holds file entries only: the engine creates missing
// parents (0755, root's) and leaves existing directories alone. Files
// belong to the sandbox's user; with one, the directories between the
// workdir and each file are added as theirs, so that they can write there.
func (s *Sandbox) WriteFiles(ctx context.Context, files []sandbox.File) error {
	if len(files) == 0 {
		return nil
	}
	groups := map[string][]sandbox.File{}
	var order []string
	for _, f := range files {
		p := s.resolve(f.Path)
		if p == "/" {
			return fmt.Errorf("write %q in %s: not a file path", f.Path, s.id)
		}
		root, ok := s.rootOf(p)
		if !ok {
			return fmt.Errorf("write %s in %s: %w: the root filesystem is read-only; files go under %s",
				p, s.id, sandbox.ErrInvalidSpec, strings.Join(s.roots, " or "))
		}
		if _, seen := groups[root]; !seen {
			order = append(order, root)
		}
		groups[root] = append(groups[root], sandbox.File{Path: p, Data: f.Data, Mode: f.Mode})
	}
	for _, root := range order {
		if err := s.extractFiles(ctx, root, groups[root]); err != nil {
			return err
		}
	}
	return nil
}

// rootOf returns where p is extracted: "/" when the sandbox's root is
// writable, else the writable mount holding p.
func (s *Sandbox) rootOf(p string) (string, bool) {
	if s.roots == nil {
		return "/", true
	}
	for _, r := range s.roots {
		if p != r && strings.HasPrefix(p, strings.TrimSuffix(r, "/")+"/") {
			return r, true
		}
	}
	return "", false
}

// extractFiles writes files (absolute paths under root) as one archive.
func (s *Sandbox) extractFiles(ctx context.Context, root string, files []sandbox.File) error {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	now := time.Now()
	dirs := map[string]bool{}
	rel := func(p string) string { return strings.TrimPrefix(strings.TrimPrefix(p, root), "/") }
	for _, f := range files {
		for _, d := range s.ownedDirs(f.Path) {
			if !dirs[d] {
				dirs[d] = true
				h := s.owner.header(&tar.Header{Typeflag: tar.TypeDir, Name: rel(d) + "/", Mode: 0o755, ModTime: now})
				if err := tw.WriteHeader(h); err != nil {
					return fmt.Errorf("write %s in %s: %w", f.Path, s.id, err)
				}
			}
		}
		mode := f.Mode.Perm()
		if mode == 0 {
			mode = 0o644
		}
		h := s.owner.header(&tar.Header{Typeflag: tar.TypeReg, Name: rel(f.Path), Mode: int64(mode), Size: int64(len(f.Data)), ModTime: now})
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
	if err := s.rt.cli.CopyToContainer(ctx, s.id, root, &buf, s.copyOptions()); err != nil {
		return fmt.Errorf("write %d files in %s: %w", len(files), s.id, s.gone(ctx, err))
	}
	return nil
}

// ownedDirs returns the directories strictly between the workdir and p,
// outermost first, when the sandbox has a user; none otherwise.
func (s *Sandbox) ownedDirs(p string) []string {
	if s.owner == nil || s.workdir == "/" || !strings.HasPrefix(p, strings.TrimSuffix(s.workdir, "/")+"/") {
		return nil
	}
	var dirs []string
	for d := path.Dir(p); d != s.workdir && d != "/"; d = path.Dir(d) {
		dirs = append([]string{d}, dirs...)
	}
	return dirs
}
