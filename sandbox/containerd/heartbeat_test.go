package containerd_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/containerd"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
)

// scopedBeats is onlyLabelled with the heartbeats of the test's owners.
type scopedBeats struct {
	onlyLabelled
	*containerd.Runtime
	owners []string
}

func (s scopedBeats) List(ctx context.Context, sel map[string]string) ([]sandbox.Info, error) {
	return s.onlyLabelled.List(ctx, sel)
}

func (s scopedBeats) Remove(ctx context.Context, id string) error {
	return s.onlyLabelled.Remove(ctx, id)
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

// TestIntegrationReapStaleHeartbeat: owners on other hosts (where /proc
// cannot tell) are judged by their heartbeat record in the namespace: the
// sandbox of one whose beat is stale is collected, with its record; that
// of one still beating is not.
func TestIntegrationReapStaleHeartbeat(t *testing.T) {
	rt := newRuntime(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const stale, fresh = "rbx-elsewhere-a_4242_1", "rbx-elsewhere-b_4242_1"
	owner := func(o string) *containerd.Runtime {
		r, err := containerd.New(ctx, containerd.WithOwner(o), containerd.WithImageSource(dockertest.Runtime(t)),
			containerd.WithHeartbeatEvery(time.Hour)) // one beat, at the first Create
		require.NoError(t, err)
		t.Cleanup(func() {
			_ = r.Close()
			assert.NoError(t, rt.ForgetHeartbeat(context.Background(), o))
		})
		return r
	}
	orphan := newSandbox(t, owner(stale), sandbox.Spec{Mode: sandbox.ModeExec})
	live := newSandbox(t, owner(fresh), sandbox.Spec{Mode: sandbox.ModeExec})
	beats, err := rt.Heartbeats(ctx)
	require.NoError(t, err)
	require.WithinDuration(t, time.Now(), beats[stale], time.Minute, "Create beat first")
	require.WithinDuration(t, time.Now(), beats[fresh], time.Minute)
	require.NoError(t, rt.Beat(ctx, stale, time.Now().Add(-10*time.Minute)), "the stale owner stopped beating long ago")

	scoped := scopedBeats{onlyLabelled{Runtime: rt, label: map[string]string{"rbx.test": sandbox.LabelValue(t.Name())}}, rt, []string{stale, fresh}}
	// Not stale under a bound longer than ten minutes.
	removed, err := sandbox.Reap(ctx, scoped, sandbox.WithHeartbeatMaxAge(time.Hour))
	require.NoError(t, err)
	assert.Empty(t, removed)

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
	assert.NotContains(t, beats, stale, "the stale owner's record went with its last sandbox")
	assert.Contains(t, beats, fresh)

	_, err = rt.Open(ctx, recordOf(t, rt, fresh))
	require.ErrorIs(t, err, sandbox.ErrNotFound, "a heartbeat record is no sandbox")
}

// recordOf returns the id of owner's heartbeat record.
func recordOf(t *testing.T, rt *containerd.Runtime, owner string) string {
	t.Helper()
	cs, err := rt.Client().Containers(rt.Namespaced(context.Background()), `labels."`+sandbox.LabelHeartbeatOwner+`"==`+owner)
	require.NoError(t, err)
	require.Len(t, cs, 1)
	return cs[0].ID()
}
