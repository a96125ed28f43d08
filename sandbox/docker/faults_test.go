package docker_test

import (
	"context"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
)

var modes = []sandbox.Mode{sandbox.ModeSession, sandbox.ModeExec}

// TestIntegrationGoneCauses: a container killed or removed from outside in
// the middle of a step yields a GoneError naming the cause.
func TestIntegrationGoneCauses(t *testing.T) {
	rt := newRuntime(t)
	ctx := context.Background()
	faults := []struct {
		cause string
		do    func(id string) error
	}{
		{sandbox.CauseKilled, func(id string) error { return rt.Client().ContainerKill(ctx, id, "KILL") }},
		{sandbox.CauseRemoved, func(id string) error {
			return rt.Client().ContainerRemove(ctx, id, container.RemoveOptions{Force: true})
		}},
	}
	for _, f := range faults {
		for _, mode := range modes {
			t.Run(f.cause+"/"+string(mode), func(t *testing.T) {
				sb := newSandbox(t, rt, sandbox.Spec{Mode: mode})
				errc := make(chan error, 1)
				go func() {
					_, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "sleep 30"})
					errc <- err
				}()
				time.Sleep(300 * time.Millisecond)
				require.NoError(t, f.do(sb.ID()))
				var err error
				select {
				case err = <-errc:
				case <-time.After(15 * time.Second):
					t.Fatal("the running step did not return")
				}
				var ge *sandbox.GoneError
				require.ErrorAs(t, err, &ge)
				require.ErrorIs(t, err, sandbox.ErrSandboxGone)
				assert.Equal(t, f.cause, ge.Cause, err.Error())
				assert.Equal(t, sb.ID(), ge.ID)
			})
		}
	}
}

// TestIntegrationOpenStopped: opening a container that no longer runs says why.
func TestIntegrationOpenStopped(t *testing.T) {
	rt := newRuntime(t)
	ctx := context.Background()
	sb := newSandbox(t, rt, sandbox.Spec{Mode: sandbox.ModeExec})
	require.NoError(t, rt.Client().ContainerKill(ctx, sb.ID(), "KILL"))
	require.Eventually(t, func() bool {
		info, err := rt.Client().ContainerInspect(ctx, sb.ID())
		return err == nil && !info.State.Running
	}, 10*time.Second, 20*time.Millisecond)
	_, err := rt.Open(ctx, sb.ID())
	var ge *sandbox.GoneError
	require.ErrorAs(t, err, &ge)
	assert.Equal(t, sandbox.CauseKilled, ge.Cause)
	assert.Equal(t, 137, ge.ExitCode)
}

var _ = docker.New
