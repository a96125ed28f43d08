package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestImportTerminalBenchReport(t *testing.T) {
	src := t.TempDir()
	for name, content := range map[string]string{
		"task.yaml":             "descriptions:\n  - key: base\n    description: Write hi.\n  - key: hard\n    description: Write hi fast.\n",
		"Dockerfile":            "FROM ghcr.io/laude-institute/t-bench/python-3-13:20250620\nWORKDIR /app\n",
		"solution.sh":           "#!/bin/bash\nset -e\necho hi > /app/hi.txt\n",
		"run-tests.sh":          "#!/bin/bash\napt-get update\ncurl -LsSf https://astral.sh/uv/0.7.13/install.sh | sh\nsource $HOME/.local/bin/env\nuv run pytest $TEST_DIR/test_outputs.py -rA\n",
		"tests/test_outputs.py": "def test_hi():\n    assert open('/app/hi.txt').read() == 'hi\\n'\n",
	} {
		p := filepath.Join(src, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	var out, errOut bytes.Buffer
	code := Run(context.Background(), []string{"import", "terminal-bench", src, "--out", t.TempDir(), "--build=false"},
		Streams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut})
	require.Equal(t, 0, code, "%s%s", out.String(), errOut.String())
	assert.Contains(t, out.String(), "not built)")
	assert.NotContains(t, out.String(), "present")
	assert.Contains(t, out.String(), "3 line(s) replaced by offline equivalents")
	assert.Contains(t, out.String(), "run-tests.sh:3: curl -LsSf https://astral.sh/uv/0.7.13/install.sh | sh")
	assert.Contains(t, errOut.String(), `old format with 2 descriptions (keys base, hard); using "base"`)
}
