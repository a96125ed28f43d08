package containerd_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/containerd"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
	"github.com/rbx-sandbox/rbx/sandbox/sandboxtest"
)

// TestIntegrationReapStaleHeartbeat: gc judges owners elsewhere by their
// heartbeat record in the namespace (sandboxtest.RunHeartbeat).
func TestIntegrationReapStaleHeartbeat(t *testing.T) {
	rt := newRuntime(t)
	sandboxtest.RunHeartbeat(t, rt, sandbox.Spec{Image: testImage}, func(t *testing.T, owner string) sandbox.Runtime {
		r, err := containerd.New(context.Background(), containerd.WithOwner(owner),
			containerd.WithImageSource(dockertest.Runtime(t)), containerd.WithHeartbeatEvery(time.Hour))
		require.NoError(t, err)
		t.Cleanup(func() { _ = r.Close() })
		return r
	})
}
