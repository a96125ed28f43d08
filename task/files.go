package task

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rbx-sandbox/rbx/task/source"
)

// CheckFiles reports every file the task names (files, verify.files, the
// build context and Dockerfile) that is missing from Dir, is of the wrong
// kind (a source ending in / must be a directory), or resolves outside Dir
// through a symbolic link.
func (t *Task) CheckFiles() error {
	r := source.NewReporter(t.Path, nil)
	t.checkFiles(r)
	return r.Err()
}

func (t *Task) checkFiles(r *source.Reporter) {
	dir := t.Dir
	if dir == "" {
		dir = "."
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		r.Errorf("", "task directory %s: %v", dir, err)
		return
	}
	for _, group := range []struct {
		field string
		files map[string]string
	}{{"files", t.Files}, {"verify.files", t.Verify.Files}} {
		for _, src := range sortedKeys(group.files) {
			want := anyKind
			if strings.HasSuffix(src, "/") {
				want = dirKind
			}
			checkExists(r, source.Key(group.field, src), root, src, want)
		}
	}
	if t.Build != nil && t.Build.Context != "" {
		checkExists(r, "build.context", root, t.Build.Context, dirKind)
		df := t.Build.Dockerfile
		if df == "" {
			df = "Dockerfile"
		}
		checkExists(r, "build.dockerfile", root, path.Join(t.Build.Context, df), fileKind)
	}
}

type kind int

const (
	anyKind kind = iota
	dirKind
	fileKind
)

func checkExists(r *source.Reporter, field, root, rel string, want kind) {
	if clean := path.Clean(rel); path.IsAbs(rel) || clean == ".." || strings.HasPrefix(clean, "../") {
		return // already reported by validate
	}
	p := filepath.Join(root, filepath.FromSlash(rel))
	real, err := filepath.EvalSymlinks(p)
	if errors.Is(err, fs.ErrNotExist) {
		r.Errorf(field, "%s: expected a file or directory at %s; it does not exist", rel, p)
		return
	}
	if err != nil {
		r.Errorf(field, "%s: %v", rel, err)
		return
	}
	if in, _ := filepath.Rel(root, real); in == ".." || strings.HasPrefix(in, ".."+string(filepath.Separator)) {
		r.Errorf(field, "%s: expected a path inside the task directory; it links to %s", rel, real)
		return
	}
	info, err := os.Stat(real)
	if err != nil {
		r.Errorf(field, "%s: %v", rel, err)
		return
	}
	switch {
	case want == dirKind && !info.IsDir():
		r.Errorf(field, "%s: expected a directory, found a file", rel)
	case want == fileKind && info.IsDir():
		r.Errorf(field, "%s: expected a file, found a directory", rel)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
