package tbench

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConvertScansScriptsTheTestsRun: a script the test script runs from
// the image (copied from the build context) is scanned too, so a Gradle
// wrapper two files away is named at import, not found as a verifier
// failure.
func TestConvertScansScriptsTheTestsRun(t *testing.T) {
	cases := []struct {
		name       string
		dockerfile string
		runTests   string
		script     string
		want       []Problem
	}{
		{name: "relative to workdir, dir copy", dockerfile: "FROM python:3.13-slim\nWORKDIR /app\nCOPY repo/ /app/\n",
			runTests: "#!/bin/bash\ncd /app\nif (sh accept.sh) > log 2>&1; then echo ok; fi\n", script: "redis-server &\n./gradlew acceptanceTest\n",
			want: []Problem{{File: "repo/accept.sh (run by run-tests.sh:3)", Line: 2, Text: "./gradlew acceptanceTest"}}},
		{name: "absolute path, file copy", dockerfile: "FROM python:3.13-slim\nCOPY repo/accept.sh /opt/run.sh\n",
			runTests: "bash /opt/run.sh\n", script: "curl -fsSL https://example.com/x | sh\n",
			want: []Problem{{File: "repo/accept.sh (run by run-tests.sh:1)", Line: 1, Text: "curl -fsSL https://example.com/x | sh"}}},
		{name: "offline script", dockerfile: "FROM python:3.13-slim\nWORKDIR /app\nCOPY repo/ /app/\n",
			runTests: "./accept.sh\n", script: "make test\n"},
		{name: "not copied into the image", dockerfile: "FROM python:3.13-slim\nWORKDIR /app\nCOPY other/ /app/\n",
			runTests: "sh accept.sh\n", script: "./gradlew test\n"},
		{name: "copied from a stage", dockerfile: "FROM python:3.13-slim AS b\nFROM python:3.13-slim\nWORKDIR /app\nCOPY --from=b /repo/ /app/\n",
			runTests: "sh accept.sh\n", script: "./gradlew test\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write := func(name, content string) {
				require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
			}
			write("task.yaml", "instruction: x\n")
			write("Dockerfile", tc.dockerfile)
			write("solution.sh", "echo ok\n")
			write("run-tests.sh", tc.runTests)
			write("repo/accept.sh", tc.script)
			write("tests/test_outputs.py", "def test_x(): pass\n")
			_, err := Convert(dir, Options{})
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			var off *OfflineError
			require.ErrorAs(t, err, &off)
			require.Len(t, off.Problems, len(tc.want))
			for i, w := range tc.want {
				p := off.Problems[i]
				assert.Equal(t, w.File, p.File)
				assert.Equal(t, w.Line, p.Line)
				assert.Equal(t, w.Text, p.Text)
				assert.NotEmpty(t, p.Reason)
			}
		})
	}
}
