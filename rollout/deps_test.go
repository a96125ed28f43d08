package rollout_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServedDoesNotLinkServer: the served environment speaks the wire
// types of server/api to a client (server/client); it must not depend on
// package server itself, whose journal, metrics and handlers a program
// that only drives a running rbx serve has no use for.
func TestServedDoesNotLinkServer(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH: cannot list rollout's dependencies")
	}
	out, err := exec.Command(goTool, "list", "-deps", "github.com/rbx-sandbox/rbx/rollout").Output()
	require.NoError(t, err, "go list -deps")
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/rbx-sandbox/rbx/server/api")
	for _, d := range deps {
		assert.NotEqual(t, "github.com/rbx-sandbox/rbx/server", d, "rollout depends on package server")
		assert.NotContains(t, d, "prometheus", "rollout depends on Prometheus")
	}
}
