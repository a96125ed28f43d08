package docker_test

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
)

// scopedBeats restricts Reap to one test's sandboxes and owners.
type scopedBeats struct {
	*docker.Runtime
	label  map[string]string
	owners []string
}

func (s scopedBeats) List(ctx context.Context, sel map[string]string) ([]sandbox.Info, error) {
	all := maps.Clone(s.label)
	maps.Copy(all, sel)
	return s.Runtime.List(ctx, all)
}

func (s scopedBeats) Heartbeats(ctx context.Context) (map[string]time.Time, error) {
	all, err := s.Runtime.Heartbeats(ctx)
	scoped := map[string]time.Time{}
	for _, o := range s.owners {
		if b, ok := all[o]; ok {
			scoped[o] = b
		}
	}
	return scoped, err
}

// TestIntegrationReapStaleHeartbeat: owners on other hosts are judged by
// their heartbeat volumes in the engine: a stale owner's sandbox and
// volumes go, a fresh owner's stay; a beat leaves one volume per owner.
func TestIntegrationReapStaleHeartbeat(t *testing.T) {
	rt := newRuntime(t)
	ctx := context.Background()
	const stale, fresh = "rbx-elsewhere-a_4242_1", "rbx-elsewhere-b_4242_1"
	owner := func(o string) *docker.Runtime {
		r, err := docker.New(docker.WithClient(rt.Client()), docker.WithOwner(o), docker.WithHeartbeatEvery(time.Hour))
		require.NoError(t, err)
		t.Cleanup(func() {
			_ = r.Close()
			assert.NoError(t, rt.ForgetHeartbeat(context.Background(), o))
		})
		return r
	}
	orphan := newSandbox(t, owner(stale), sandbox.Spec{Mode: sandbox.ModeExec})
	live := newSandbox(t, owner(fresh), sandbox.Spec{Mode: sandbox.ModeExec})
	require.NoError(t, rt.Beat(ctx, stale, time.Now().Add(-10*time.Minute)), "the stale owner stopped beating long ago")
	beats, err := rt.Heartbeats(ctx)
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now().Add(-10*time.Minute), beats[stale], time.Minute, "the last beat replaced the first")
	assert.WithinDuration(t, time.Now(), beats[fresh], time.Minute)

	scoped := scopedBeats{rt, map[string]string{"rbx.test": sandbox.LabelValue(t.Name())}, []string{stale, fresh}}
	removed, err := sandbox.Reap(ctx, scoped, sandbox.WithHeartbeatMaxAge(time.Hour))
	require.NoError(t, err)
	assert.Empty(t, removed, "not stale under a bound of an hour")

	removed, err = sandbox.Reap(ctx, scoped)
	require.NoError(t, err)
	require.Len(t, removed, 1)
	assert.Equal(t, orphan.ID(), removed[0].ID)
	left, err := scoped.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, left, 1)
	assert.Equal(t, live.ID(), left[0].ID)
	beats, err = rt.Heartbeats(ctx)
	require.NoError(t, err)
	assert.NotContains(t, beats, stale, "the stale owner's volumes went with its last sandbox")
	assert.Contains(t, beats, fresh)
}
