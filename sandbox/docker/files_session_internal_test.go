package docker

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/internal/testenv"
	"github.com/rbx-sandbox/rbx/sandbox"
)

// TestIntegrationFilesTakeTheSessionPath: in session mode small file
// actions are handled by the session, not by the archive API.
func TestIntegrationFilesTakeTheSessionPath(t *testing.T) {
	ctx := context.Background()
	if testing.Short() {
		t.Skip("-short: skipping a test that needs the Docker engine")
	}
	if err := Available(ctx); err != nil {
		testenv.Missing(t, "no Docker engine answers: %v", err)
	}
	rt, err := New()
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close() })
	if _, err := rt.cli.ImageInspect(ctx, "rbx/busybox:latest"); err != nil {
		testenv.Missing(t, "rbx/busybox:latest not built (make images)")
	}
	sb, err := rt.Create(ctx, sandbox.Spec{Image: "rbx/busybox:latest"})
	t.Cleanup(func() {
		if sb != nil {
			_ = sb.Remove(context.Background())
		}
	})
	require.NoError(t, err)
	s := sb.(*Sandbox)
	handled, err := s.writeViaSession(ctx, "/workspace/a/b.txt", []byte("hi\n"), 0o600)
	require.NoError(t, err)
	assert.True(t, handled)
	data, handled, err := s.readViaSession(ctx, "/workspace/a/b.txt")
	require.NoError(t, err)
	assert.True(t, handled)
	assert.Equal(t, "hi\n", string(data))
	big := make([]byte, sessionFileMax+1)
	handled, err = s.writeViaSession(ctx, "/workspace/big", big, 0)
	require.NoError(t, err)
	assert.False(t, handled, "large files go through a stream of their own")
}
