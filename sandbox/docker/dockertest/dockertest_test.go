package dockertest_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/internal/testenv"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
)

// childEnv marks the re-executed test binary's run of TestNeedsEngineChild.
const childEnv = "RBX_DOCKERTEST_CHILD"

// TestNeedsEngineChild is the test the parent runs in a child process with
// the engine pointed at a dead socket; on its own it does nothing.
func TestNeedsEngineChild(t *testing.T) {
	if os.Getenv(childEnv) != "1" {
		return
	}
	dockertest.Skip(t)
	t.Log("reached past Skip")
}

// TestSkipFailsWhenDockerRequired runs this test binary again with no
// engine: the integration test skips (exit 0), or fails (exit 1) when
// RBX_REQUIRE_DOCKER=1, naming the switch.
func TestSkipFailsWhenDockerRequired(t *testing.T) {
	tests := []struct {
		name    string
		require string
		exit    int
		want    string
	}{
		{name: "unset skips", require: "", exit: 0, want: "--- SKIP: TestNeedsEngineChild"},
		{name: "0 skips", require: "0", exit: 0, want: "--- SKIP: TestNeedsEngineChild"},
		{name: "1 fails", require: "1", exit: 1, want: "--- FAIL: TestNeedsEngineChild"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run", "^TestNeedsEngineChild$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), childEnv+"=1",
				"DOCKER_HOST=unix://"+t.TempDir()+"/no-engine.sock",
				testenv.RequireDockerEnv+"="+tc.require)
			out, err := cmd.CombinedOutput()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else {
				require.NoError(t, err, "%s", out)
			}
			assert.Equal(t, tc.exit, code, "%s", out)
			assert.Contains(t, string(out), tc.want)
			assert.Contains(t, string(out), "no Docker engine answers")
			assert.NotContains(t, string(out), "reached past Skip")
			if tc.exit != 0 {
				assert.Contains(t, string(out), "RBX_REQUIRE_DOCKER=1 makes this a failure")
			}
		})
	}
}
