package client_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClientDoesNotLinkServer keeps server/client a thin HTTP client: it
// speaks the wire types of server/api, and must not depend on the server
// itself, whose journal (SQLite), metrics (Prometheus), reset engine and
// prefix cache a trainer importing the client would otherwise link. A
// new import of package server (or of anything that pulls those in)
// fails here rather than silently growing every client binary.
func TestClientDoesNotLinkServer(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH: cannot list the client's dependencies")
	}
	out, err := exec.Command(goTool, "list", "-deps", "github.com/rbx-sandbox/rbx/server/client").Output()
	require.NoError(t, err, "go list -deps")
	forbidden := map[string]bool{
		"github.com/rbx-sandbox/rbx/server": true,
		"github.com/rbx-sandbox/rbx/reset":  true,
		"github.com/rbx-sandbox/rbx/prefix": true,
	}
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/rbx-sandbox/rbx/server/api", "the listing should include the wire types")
	for _, d := range deps {
		assert.False(t, forbidden[d], "server/client depends on %s", d)
		assert.NotContains(t, d, "modernc.org/sqlite", "server/client depends on SQLite")
		assert.NotContains(t, d, "prometheus", "server/client depends on Prometheus")
	}
}
