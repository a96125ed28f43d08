package docker_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
	"github.com/rbx-sandbox/rbx/sandbox/sandboxtest"
)

// TestIntegrationReapStaleHeartbeat: gc judges owners elsewhere by their
// heartbeat volumes in the engine (sandboxtest.RunHeartbeat).
func TestIntegrationReapStaleHeartbeat(t *testing.T) {
	rt := newRuntime(t)
	sandboxtest.RunHeartbeat(t, rt, sandbox.Spec{Image: testImage}, func(t *testing.T, owner string) sandbox.Runtime {
		r, err := docker.New(docker.WithClient(rt.Client()), docker.WithOwner(owner), docker.WithHeartbeatEvery(time.Hour))
		require.NoError(t, err)
		t.Cleanup(func() { _ = r.Close() })
		return r
	})
}
