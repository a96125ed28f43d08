// Package agenttest builds the rbx-agent binary for tests, once per test
// binary, static (CGO_ENABLED=0) as make build does.
package agenttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	once  sync.Once
	path  string
	fault error
	out   []byte
)

// Build returns the path of a freshly built agent binary, shared by every
// test of the process; it fails tb when the build fails.
func Build(tb testing.TB) string {
	tb.Helper()
	once.Do(func() {
		dir, err := os.MkdirTemp("", "rbx-agent-")
		if err != nil {
			fault = err
			return
		}
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		path = filepath.Join(dir, "rbx-agent")
		cmd := exec.Command("go", "build", "-o", path, "./cmd/rbx-agent")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, fault = cmd.CombinedOutput()
	})
	if fault != nil {
		tb.Fatalf("build rbx-agent: %v\n%s", fault, out)
	}
	return path
}
