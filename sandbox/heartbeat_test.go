package sandbox_test

import (
	"context"
	"errors"
	"log/slog"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

func TestOwnerDead(t *testing.T) {
	now := time.Now()
	const other = "elsewhere_4242_777" // another host: /proc cannot tell
	dead := deadOwner(t)
	for _, tc := range []struct {
		name  string
		owner string
		beats map[string]time.Time
		want  bool
	}{
		{"other host, stale beat", other, map[string]time.Time{other: now.Add(-3 * time.Minute)}, true},
		{"other host, fresh beat", other, map[string]time.Time{other: now.Add(-30 * time.Second)}, false},
		{"other host, beat just within the bound", other, map[string]time.Time{other: now.Add(-2 * time.Minute)}, false},
		{"other host, beat from a clock ahead", other, map[string]time.Time{other: now.Add(time.Hour)}, false},
		{"other host, no beat", other, nil, false},
		{"other host, only others' beats", other, map[string]time.Time{"x_1_1": now.Add(-time.Hour)}, false},
		{"unparsable owner, stale beat", "legacy", map[string]time.Time{"legacy": now.Add(-time.Hour)}, true},
		{"this process, stale beat: /proc wins", sandbox.Owner, map[string]time.Time{sandbox.Owner: now.Add(-time.Hour)}, false},
		{"dead process of this host, fresh beat: /proc wins", dead, map[string]time.Time{dead: now}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, sandbox.OwnerDead(tc.owner, tc.beats, now, 2*time.Minute))
		})
	}
}

// beatRuntime is a fakeRuntime that keeps heartbeats.
type beatRuntime struct {
	fakeRuntime
	bmu       sync.Mutex
	beats     map[string]time.Time
	forgotten []string
	beatErr   error
}

func (b *beatRuntime) Beat(_ context.Context, owner string, at time.Time) error {
	b.bmu.Lock()
	defer b.bmu.Unlock()
	if b.beats == nil {
		b.beats = map[string]time.Time{}
	}
	b.beats[owner] = at
	return nil
}

func (b *beatRuntime) Heartbeats(context.Context) (map[string]time.Time, error) {
	b.bmu.Lock()
	defer b.bmu.Unlock()
	out := map[string]time.Time{}
	for k, v := range b.beats {
		out[k] = v
	}
	return out, b.beatErr
}

func (b *beatRuntime) ForgetHeartbeat(_ context.Context, owner string) error {
	b.bmu.Lock()
	defer b.bmu.Unlock()
	delete(b.beats, owner)
	b.forgotten = append(b.forgotten, owner)
	return nil
}

func TestReapHeartbeats(t *testing.T) {
	now := time.Now()
	const stale, fresh, silent, gone = "stale_1_1", "fresh_2_2", "silent_3_3", "gone_4_4"
	killed := deadOwner(t) // of this host: dead by /proc, its last beat fresh
	newRT := func() *beatRuntime {
		rt := &beatRuntime{beats: map[string]time.Time{
			stale: now.Add(-10 * time.Minute), fresh: now.Add(-10 * time.Second),
			gone:   now.Add(-time.Hour), // no sandbox left: only its record
			killed: now, sandbox.Owner: now.Add(-time.Hour),
		}}
		rt.infos = []sandbox.Info{
			info("of-stale", stale, time.Hour), info("of-stale-kept", stale, time.Hour, sandbox.LabelKeep, "true"),
			info("of-fresh", fresh, time.Hour), info("of-silent", silent, time.Hour),
		}
		return rt
	}
	t.Run("default bound", func(t *testing.T) {
		rt := newRT()
		removed, err := sandbox.Reap(context.Background(), rt)
		require.NoError(t, err)
		assert.Equal(t, []string{"of-stale"}, ids(removed), "a stale owner's, kept ones spared")
		assert.Equal(t, sorted([]string{gone, killed}), sorted(rt.forgotten), "the stale owner still owns a kept sandbox; this process is alive")
	})
	t.Run("kept and a tighter bound", func(t *testing.T) {
		rt := newRT()
		removed, err := sandbox.Reap(context.Background(), rt, sandbox.WithKept(), sandbox.WithHeartbeatMaxAge(5*time.Second))
		require.NoError(t, err)
		assert.Equal(t, []string{"of-fresh", "of-stale", "of-stale-kept"}, sorted(ids(removed)))
		assert.Equal(t, sorted([]string{fresh, gone, stale, killed}), sorted(rt.forgotten))
	})
	t.Run("dry run forgets nothing", func(t *testing.T) {
		rt := newRT()
		removed, err := sandbox.Reap(context.Background(), rt, sandbox.WithDryRun())
		require.NoError(t, err)
		assert.Equal(t, []string{"of-stale"}, ids(removed))
		assert.Empty(t, rt.forgotten)
		assert.Empty(t, rt.removed)
	})
	t.Run("unreadable heartbeats: nobody elsewhere is dead", func(t *testing.T) {
		rt := newRT()
		rt.beatErr = errors.New("engine says no")
		removed, err := sandbox.Reap(context.Background(), rt)
		require.ErrorContains(t, err, "engine says no")
		assert.Empty(t, removed)
	})
	t.Run("bad bound", func(t *testing.T) {
		_, err := sandbox.Reap(context.Background(), newRT(), sandbox.WithHeartbeatMaxAge(0))
		assert.Error(t, err)
	})
}

func sorted(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}

func TestHeartbeat(t *testing.T) {
	rt := &beatRuntime{}
	hb := sandbox.NewHeartbeat(rt, "me_1_1", 20*time.Millisecond, slog.New(slog.DiscardHandler))
	hb.Start(context.Background())
	beats, err := rt.Heartbeats(context.Background())
	require.NoError(t, err)
	first, ok := beats["me_1_1"]
	require.True(t, ok, "the first beat is synchronous")
	hb.Start(context.Background()) // no second loop
	require.Eventually(t, func() bool {
		b, _ := rt.Heartbeats(context.Background())
		return b["me_1_1"].After(first)
	}, 2*time.Second, 10*time.Millisecond, "beats go on")
	hb.Stop()
	b, _ := rt.Heartbeats(context.Background())
	last := b["me_1_1"]
	time.Sleep(60 * time.Millisecond)
	b, _ = rt.Heartbeats(context.Background())
	assert.Equal(t, last, b["me_1_1"], "no beat after Stop")
	hb.Stop() // twice is fine

	never := sandbox.NewHeartbeat(rt, "never_1_1", time.Millisecond, slog.New(slog.DiscardHandler))
	never.Stop()
	never.Start(context.Background())
	b, _ = rt.Heartbeats(context.Background())
	assert.NotContains(t, b, "never_1_1", "a Start after Stop does nothing")
}

func TestHeartbeatEnd(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		started bool
		owns    bool
		forgot  bool
	}{
		{"clean exit: record removed", true, false, true},
		{"kept sandboxes: record stays to age", true, true, false},
		{"never started: nothing asked", false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := &beatRuntime{}
			if tc.owns {
				rt.infos = []sandbox.Info{info("kept", "me_1_1", time.Minute, sandbox.LabelKeep, "true"), info("other", "you_1_1", time.Minute)}
			} else {
				rt.infos = []sandbox.Info{info("other", "you_1_1", time.Minute)}
			}
			hb := sandbox.NewHeartbeat(rt, "me_1_1", time.Hour, slog.New(slog.DiscardHandler))
			if tc.started {
				hb.Start(ctx)
			}
			require.NoError(t, hb.End(ctx, rt))
			assert.Equal(t, tc.forgot, len(rt.forgotten) == 1, "forgotten: %v", rt.forgotten)
		})
	}
}
