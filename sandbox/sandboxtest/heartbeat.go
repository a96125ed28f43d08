package sandboxtest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// NewOwner returns a runtime of the backend under test whose sandboxes
// belong to owner and whose heartbeat beats once, at its first Create (a
// long interval), closed at the end of the test.
type NewOwner func(t *testing.T, owner string) sandbox.Runtime

// RunHeartbeat checks a backend's heartbeats (rt must be a
// sandbox.HeartbeatStore) with sandbox.Reap, as `rbx gc` runs it: owners
// of other hosts, which /proc cannot judge, are judged by their heartbeat;
// the sandbox of one whose beat is stale is collected with its record,
// that of one still beating is kept, and no owner is stale under a bound
// longer than its beat's age.
func RunHeartbeat(t *testing.T, rt sandbox.Runtime, spec sandbox.Spec, newOwner NewOwner) {
	store, ok := rt.(sandbox.HeartbeatStore)
	require.True(t, ok, "%T keeps heartbeats", rt)
	ctx := context.Background()
	const stale, fresh = "rbx-elsewhere-a_4242_1", "rbx-elsewhere-b_4242_1"
	t.Cleanup(func() {
		for _, o := range []string{stale, fresh} {
			assert.NoError(t, store.ForgetHeartbeat(context.Background(), o))
		}
	})
	s := &suite{spec: spec}
	s.rt = newOwner(t, stale)
	orphan := s.create(t, s.specFor(sandbox.ModeExec))
	s.rt = newOwner(t, fresh)
	live := s.create(t, s.specFor(sandbox.ModeExec))
	beats, err := store.Heartbeats(ctx)
	require.NoError(t, err)
	require.WithinDuration(t, time.Now(), beats[stale], time.Minute, "Create beats first")
	require.WithinDuration(t, time.Now(), beats[fresh], time.Minute)
	require.NoError(t, store.Beat(ctx, stale, time.Now().Add(-10*time.Minute)), "the stale owner stopped beating long ago")

	sc := scoped{Runtime: rt, store: store, ids: []string{orphan.ID(), live.ID()}, owners: []string{stale, fresh}}
	removed, err := sandbox.Reap(ctx, sc, sandbox.WithHeartbeatMaxAge(time.Hour))
	require.NoError(t, err)
	assert.Empty(t, removed, "not stale under a bound of an hour")

	removed, err = sandbox.Reap(ctx, sc)
	require.NoError(t, err)
	require.Len(t, removed, 1)
	assert.Equal(t, orphan.ID(), removed[0].ID)
	left, err := sc.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, left, 1)
	assert.Equal(t, live.ID(), left[0].ID)
	beats, err = store.Heartbeats(ctx)
	require.NoError(t, err)
	assert.NotContains(t, beats, stale, "the stale owner's record went with its last sandbox")
	assert.Contains(t, beats, fresh)
}

// scoped is rt restricted to the test's sandboxes and owners, so that
// Reap leaves everything else on the engine alone.
type scoped struct {
	sandbox.Runtime
	store  sandbox.HeartbeatStore
	ids    []string
	owners []string
}

func (s scoped) List(ctx context.Context, sel map[string]string) ([]sandbox.Info, error) {
	all, err := s.Runtime.List(ctx, sel)
	var mine []sandbox.Info
	for _, in := range all {
		if slices.Contains(s.ids, in.ID) {
			mine = append(mine, in)
		}
	}
	return mine, err
}

func (s scoped) Beat(ctx context.Context, owner string, at time.Time) error {
	return s.store.Beat(ctx, owner, at)
}

func (s scoped) Heartbeats(ctx context.Context) (map[string]time.Time, error) {
	all, err := s.store.Heartbeats(ctx)
	mine := map[string]time.Time{}
	for _, o := range s.owners {
		if b, ok := all[o]; ok {
			mine[o] = b
		}
	}
	return mine, err
}

func (s scoped) ForgetHeartbeat(ctx context.Context, owner string) error {
	return s.store.ForgetHeartbeat(ctx, owner)
}
