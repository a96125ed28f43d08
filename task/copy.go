package task

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// CopyFile is one file to place in a sandbox.
type CopyFile struct {
	// Src is the file on the host.
	Src string
	// Dest is the destination in the sandbox: absolute, or relative to the workdir.
	Dest string
	// Mode is the host file's permission bits.
	Mode fs.FileMode
}

// Expand lists the files a files map (source relative to the task dir →
// destination) places, walking directory sources (a source ending in "/" or
// naming a directory) recursively, in a stable order.
func (t *Task) Expand(files map[string]string) ([]CopyFile, error) {
	srcs := make([]string, 0, len(files))
	for s := range files {
		srcs = append(srcs, s)
	}
	sort.Strings(srcs)
	var out []CopyFile
	for _, src := range srcs {
		dest := files[src]
		host := filepath.Join(t.Dir, filepath.FromSlash(src))
		st, err := os.Stat(host)
		if err != nil {
			return nil, fmt.Errorf("task %q: files: %q: %w", t.ID, src, err)
		}
		if !st.IsDir() {
			if strings.HasSuffix(dest, "/") {
				dest = path.Join(dest, filepath.Base(host))
			}
			out = append(out, CopyFile{Src: host, Dest: dest, Mode: st.Mode().Perm()})
			continue
		}
		err = filepath.WalkDir(host, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			if !info.Mode().IsRegular() {
				return fmt.Errorf("%s: only regular files can be copied", p)
			}
			rel, err := filepath.Rel(host, p)
			if err != nil {
				return err
			}
			out = append(out, CopyFile{Src: p, Dest: path.Join(dest, filepath.ToSlash(rel)), Mode: info.Mode().Perm()})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("task %q: files: %q: %w", t.ID, src, err)
		}
	}
	return out, nil
}
