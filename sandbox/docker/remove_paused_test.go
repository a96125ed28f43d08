package docker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// TestIntegrationRemovePaused: a frozen sandbox (docker pause) with a
// step still running in it is removed at once, by the sandbox and by the
// runtime, and the engine answers about it afterwards (what a repair
// relies on: the frozen sandbox is gone before the call is answered).
func TestIntegrationRemovePaused(t *testing.T) {
	rt := newRuntime(t)
	ctx := context.Background()
	for _, how := range []string{"sandbox", "runtime"} {
		t.Run(how, func(t *testing.T) {
			sb := newSandbox(t, rt, sandbox.Spec{Mode: sandbox.ModeSession})
			go func() { _, _ = sb.Exec(ctx, sandbox.ExecRequest{Command: "sleep 100", Timeout: time.Minute}) }()
			time.Sleep(300 * time.Millisecond)
			require.NoError(t, rt.Client().ContainerPause(ctx, sb.ID()))
			rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			defer cancel()
			start := time.Now()
			if how == "sandbox" {
				require.NoError(t, sb.Remove(rctx))
			} else {
				require.NoError(t, rt.Remove(rctx, sb.ID()))
			}
			assert.Less(t, time.Since(start), 10*time.Second)
			ictx, icancel := context.WithTimeout(ctx, 5*time.Second)
			defer icancel()
			_, err := rt.Client().ContainerInspect(ictx, sb.ID())
			require.Error(t, err)
			assert.NoError(t, ictx.Err(), "the engine answers about the removed container")
		})
	}
}
