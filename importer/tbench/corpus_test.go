package tbench

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// corpusDir is ../shared/corpus/terminal-bench next to the repository, or
// "" when absent.
func corpusDir() string {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "corpus", "terminal-bench")
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	return dir
}

func needCorpus(t *testing.T) string {
	t.Helper()
	dir := corpusDir()
	if dir == "" {
		t.Skip("corpus not found at ../shared/corpus/terminal-bench (relative to the repository); skipping")
	}
	return dir
}

func addCorpusSeeds(f *testing.F, name string) {
	dir := corpusDir()
	if dir == "" {
		return
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", name))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
}
