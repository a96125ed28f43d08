package tbench

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCorpusVerdictsCoverTheCorpus: every corpus task has an expected
// verdict (a task added without one would fail only in make corpus), and
// make test's sample names corpus tasks.
func TestCorpusVerdictsCoverTheCorpus(t *testing.T) {
	corpus := needCorpus(t)
	dirs, err := filepath.Glob(filepath.Join(corpus, "*"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	for _, dir := range dirs {
		_, known := corpusVerdicts[filepath.Base(dir)]
		assert.True(t, known, "corpus task %s has no expected verdict in corpusVerdicts", filepath.Base(dir))
	}
	for _, name := range corpusSample {
		assert.DirExists(t, filepath.Join(corpus, name), "corpusSample names a task the corpus does not hold")
	}
}
