package tbench

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// metaFiles are the files of a terminal-bench folder that are not part of
// the agent's environment.
var metaFiles = []string{"task.yaml", "solution.sh", "run-tests.sh", "Dockerfile", "docker-compose.yaml",
	"docker-compose.yml", "SOURCE", "README.md", "tests", "solution"}

// extraFiles lists the top-level files of a task without Dockerfile that
// belong to the environment (terminal-bench's Dockerfile would COPY them).
func extraFiles(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if slices.Contains(metaFiles, n) || strings.HasPrefix(n, "LICENSE") || strings.HasPrefix(n, ".") {
			continue
		}
		if e.Type().IsRegular() || e.IsDir() {
			if e.IsDir() {
				n += "/"
			}
			out = append(out, n)
		}
	}
	return out
}

// copyTree copies the regular files and directories under src to dst.
func copyTree(src, dst string, skip func(rel string) bool) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if rel != "." && skip != nil && skip(filepath.ToSlash(rel)) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(target, data, info.Mode().Perm()|0o600)
		}
		return nil
	})
}
