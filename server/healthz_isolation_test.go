package server_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/admission"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/server"
)

// TestHealthzIsolation: /healthz says what isolation the sandboxes get and
// the operator's task policy, as given.
func TestHealthzIsolation(t *testing.T) {
	iso := sandbox.Isolation{OCIRuntime: "runsc", Available: []string{"runc", "runsc"}, Seccomp: "default"}
	h := manyHarness(t, 3, server.WithIsolation(iso, admission.Default()))
	var got struct {
		Isolation  sandbox.Isolation `json:"isolation"`
		TaskPolicy admission.Policy  `json:"task_policy"`
	}
	code, raw := h.call("GET", "/healthz", nil, &got)
	require.Equal(t, 200, code, string(raw))
	assert.Equal(t, iso, got.Isolation)
	assert.Equal(t, admission.SafeCaps, got.TaskPolicy.Caps)
	assert.False(t, got.TaskPolicy.Network)
}
