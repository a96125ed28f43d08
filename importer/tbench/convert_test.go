package tbench

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConvertCorpus(t *testing.T) {
	corpus := needCorpus(t)
	tests := []struct {
		name, image string
		steps       int
	}{
		{"evoeval-0", "rbx-task/evoeval-0:", 1},
		{"evoeval-24", "rbx-task/evoeval-24:", 1},
		{"tb-hello-world", "rbx/debian:bookworm", 1},
		{"tb-parallelize-compute-squares", "rbx/debian:bookworm", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Convert(filepath.Join(corpus, tt.name), Options{})
			require.NoError(t, err)
			assert.Len(t, c.Trajectory.Steps, tt.steps)
			w, err := c.Write(t.TempDir())
			require.NoError(t, err)
			assert.Contains(t, w.Image, tt.image)
			assert.Equal(t, "/app", c.Task.Workdir)
			v, err := os.ReadFile(filepath.Join(w.Dir, "rbx-verifier", "verify.sh"))
			require.NoError(t, err)
			assert.Contains(t, string(v), "bash /tests/run-tests.sh")
			_, err = os.Stat(filepath.Join(w.Dir, "tests", "run-tests.sh"))
			assert.NoError(t, err)
		})
	}
}

func TestConvertReportsNetworkNeeds(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	write("task.yaml", "instruction: x\n")
	write("Dockerfile", "FROM python:3.13-slim\nRUN apt-get update && \\\n    pip install numpy\nWORKDIR /srv\n")
	write("solution.sh", "#!/bin/bash\ncurl -fsSL https://example.com/x.sh | sh\necho ok\n")
	write("tests/test_outputs.py", "def test_x(): pass\n")
	c, err := Convert(dir, Options{})
	var off *OfflineError
	require.ErrorAs(t, err, &off)
	assert.ErrorIs(t, err, ErrNotOffline)
	require.Len(t, off.Problems, 2)
	assert.Equal(t, Problem{File: "Dockerfile", Line: 3, Text: "    pip install numpy", Reason: off.Problems[0].Reason}, off.Problems[0])
	assert.Equal(t, "solution.sh", off.Problems[1].File)
	assert.Equal(t, 2, off.Problems[1].Line)
	assert.Equal(t, "/srv", c.Task.Workdir)

	write("Dockerfile", "FROM nvidia/cuda:12\n")
	write("solution.sh", "echo ok\n")
	_, err = Convert(dir, Options{})
	require.ErrorAs(t, err, &off)
	assert.Contains(t, off.Problems[0].Reason, "no local alias")
}

func TestParsePytest(t *testing.T) {
	r, ok := ParsePytest("x\n===== 2 passed, 1 failed, 1 error in 0.3s =====\n")
	require.True(t, ok)
	assert.Equal(t, PytestResult{Passed: 2, Failed: 1, Errors: 1}, r)
	assert.False(t, r.OK())
	r, ok = ParsePytest("== short ==\n========== 3 passed in 1s ==========")
	assert.True(t, ok && r.OK())
	_, ok = ParsePytest("nothing")
	assert.False(t, ok)
}

func TestHarborLayout(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"task.toml":              "version = \"1.0\"\n[verifier]\ntimeout_sec = 90.0\n[agent]\ntimeout_sec = 600\n",
		"instruction.md":         "Write hi to /app/hi.txt\n",
		"environment/Dockerfile": "FROM ubuntu:24.04\nWORKDIR /app\n",
		"solution/solve.sh":      "#!/bin/bash\necho hi > /app/hi.txt\n",
		"tests/test.sh":          "#!/bin/bash\ncurl -LsSf https://astral.sh/uv/install.sh | sh\nuvx -p 3.13 -w pytest pytest /tests/test_outputs.py\n",
		"tests/test_outputs.py":  "def test_hi():\n    assert open('/app/hi.txt').read() == 'hi\\n'\n",
	} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	c, err := Convert(dir, Options{ID: "harbor-hi"})
	require.NoError(t, err)
	assert.Equal(t, LayoutHarbor, c.Source.Layout)
	assert.Equal(t, 90*time.Second, c.Task.Verify.Timeout.D())
	assert.Equal(t, "rbx/debian:bookworm", c.BaseImage)
	assert.Contains(t, c.VerifyFiles["verify.sh"], "bash /tests/test.sh")
	assert.Contains(t, c.TestFiles["test.sh"], StandinDir+"/uv tool run -p 3.13 -w pytest pytest /tests/test_outputs.py")
	assert.Contains(t, c.TestFiles["test.sh"], StandinDir+"/rbx-offline install-uv")
	w, err := c.Write(t.TempDir())
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(w.ContextDir, "Dockerfile"))
}
