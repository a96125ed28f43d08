package sandboxtest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// RunIsGVisor checks that a sandbox rt creates from spec runs on gVisor's
// kernel (its boot log says so), not the host's: a runtime that fell back
// to runc would pass the conformance suite as well.
func RunIsGVisor(t *testing.T, rt sandbox.Runtime, spec sandbox.Spec) {
	t.Helper()
	spec.Mode = sandbox.ModeExec
	sb, err := rt.Create(context.Background(), spec)
	t.Cleanup(func() {
		if sb != nil {
			_ = sb.Remove(context.Background())
		}
	})
	require.NoError(t, err)
	res, err := sb.Exec(context.Background(), sandbox.ExecRequest{Command: "dmesg | head -n 1"})
	require.NoError(t, err)
	assert.Contains(t, string(res.Output), "gVisor")
}
