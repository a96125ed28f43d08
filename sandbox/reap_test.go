package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// fakeRuntime is an in-memory Reapable.
type fakeRuntime struct {
	mu      sync.Mutex
	infos   []sandbox.Info
	removed []string
	fail    map[string]error
	stuck   map[string]bool // Remove blocks until its ctx ends
	active  int
	peak    int
}

func (f *fakeRuntime) List(_ context.Context, selector map[string]string) ([]sandbox.Info, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []sandbox.Info
	for _, in := range f.infos {
		match := true
		for k, v := range selector {
			match = match && in.Labels[k] == v
		}
		if match {
			out = append(out, in)
		}
	}
	return out, nil
}

func (f *fakeRuntime) Remove(ctx context.Context, id string) error {
	f.mu.Lock()
	if f.stuck[id] {
		f.mu.Unlock()
		<-ctx.Done()
		return ctx.Err()
	}
	f.active++
	f.peak = max(f.peak, f.active)
	f.mu.Unlock()
	time.Sleep(2 * time.Millisecond)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.active--
	if err := f.fail[id]; err != nil {
		return err
	}
	f.removed = append(f.removed, id)
	return nil
}

func info(id, owner string, age time.Duration, extra ...string) sandbox.Info {
	l := map[string]string{
		sandbox.LabelManaged: "true", sandbox.LabelOwner: owner, sandbox.LabelTask: "t-" + id,
		sandbox.LabelCreated: strconv.FormatInt(time.Now().Add(-age).Unix(), 10),
	}
	for i := 0; i+1 < len(extra); i += 2 {
		l[extra[i]] = extra[i+1]
	}
	return sandbox.Info{ID: id, Labels: l}
}

func ids(infos []sandbox.Info) []string {
	out := []string{}
	for _, in := range infos {
		out = append(out, in.ID)
	}
	sort.Strings(out)
	return out
}

func TestReap(t *testing.T) {
	dead := deadOwner(t)
	fixture := func() []sandbox.Info {
		return []sandbox.Info{
			info("dead-young", dead, time.Minute),
			info("dead-old", dead, 3*time.Hour),
			info("dead-kept", dead, time.Minute, sandbox.LabelKeep, "true"),
			info("dead-pooled", dead, time.Minute, sandbox.LabelTask, "-", "rbx.pool", "p1"),
			info("self", sandbox.Owner, 3*time.Hour),
			info("other-host", "elsewhere.example/1/1", 3*time.Hour),
			info("legacy-owner", "1234-abcd", time.Minute),
			{ID: "unmanaged", Labels: map[string]string{sandbox.LabelOwner: dead}},
		}
	}
	tests := []struct {
		name string
		opts []sandbox.ReapOption
		want []string
	}{
		{"default: dead owners of this host, not kept", nil, []string{"dead-old", "dead-pooled", "dead-young"}},
		{"kept: also the kept ones of dead owners", []sandbox.ReapOption{sandbox.WithKept()}, []string{"dead-kept", "dead-old", "dead-pooled", "dead-young"}},
		{"all but self", []sandbox.ReapOption{sandbox.WithAll()}, []string{"dead-kept", "dead-old", "dead-pooled", "dead-young", "legacy-owner", "other-host"}},
		{"all with self", []sandbox.ReapOption{sandbox.WithAll(), sandbox.WithSelf()}, []string{"dead-kept", "dead-old", "dead-pooled", "dead-young", "legacy-owner", "other-host", "self"}},
		{"older than: exactly the old ones but self", []sandbox.ReapOption{sandbox.WithOlderThan(time.Hour)}, []string{"dead-old", "other-host"}},
		{"older than with self", []sandbox.ReapOption{sandbox.WithOlderThan(time.Hour), sandbox.WithSelf()}, []string{"dead-old", "other-host", "self"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rt := &fakeRuntime{infos: fixture()}
			got, err := sandbox.Reap(context.Background(), rt, tc.opts...)
			require.NoError(t, err)
			assert.Equal(t, tc.want, ids(got))
			sort.Strings(rt.removed)
			assert.Equal(t, tc.want, append([]string{}, rt.removed...))

			rt = &fakeRuntime{infos: fixture()}
			got, err = sandbox.Reap(context.Background(), rt, append(tc.opts, sandbox.WithDryRun())...)
			require.NoError(t, err)
			assert.Equal(t, tc.want, ids(got), "dry run selects the same")
			assert.Empty(t, rt.removed, "dry run removes nothing")
		})
	}
}

func TestReapErrors(t *testing.T) {
	dead := deadOwner(t)
	rt := &fakeRuntime{fail: map[string]error{
		"b": errors.New("engine says no"),
		"c": fmt.Errorf("remove c: %w", sandbox.ErrNotFound), // reaped by someone else meanwhile
		"d": errors.New("disk on fire"),
	}}
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		rt.infos = append(rt.infos, info(id, dead, time.Minute))
	}
	got, err := sandbox.Reap(context.Background(), rt)
	assert.Equal(t, []string{"a", "e"}, ids(got))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "reap b: engine says no")
	assert.Contains(t, err.Error(), "reap d: disk on fire")
	assert.NotContains(t, err.Error(), "reap c")

	_, err = sandbox.Reap(context.Background(), rt, sandbox.WithAll(), sandbox.WithOlderThan(time.Hour))
	require.ErrorIs(t, err, sandbox.ErrInvalidSpec)
	_, err = sandbox.Reap(context.Background(), rt, sandbox.WithOlderThan(0))
	require.Error(t, err)
}

func TestReapConcurrencyBounded(t *testing.T) {
	dead := deadOwner(t)
	rt := &fakeRuntime{}
	for i := range 20 {
		rt.infos = append(rt.infos, info(fmt.Sprint(i), dead, time.Minute))
	}
	got, err := sandbox.Reap(context.Background(), rt, sandbox.WithReapConcurrency(3))
	require.NoError(t, err)
	assert.Len(t, got, 20)
	assert.LessOrEqual(t, rt.peak, 3)
	assert.Greater(t, rt.peak, 1, "removals run concurrently")
}

// TestReapStuckRemoval: a sandbox the engine cannot remove costs its own
// removal's timeout, not the reap's: the others are removed, and the
// stuck one is named in the error.
func TestReapStuckRemoval(t *testing.T) {
	dead := deadOwner(t)
	f := &fakeRuntime{infos: []sandbox.Info{info("a", dead, time.Hour), info("wedged", dead, time.Hour), info("b", dead, time.Hour)},
		stuck: map[string]bool{"wedged": true}}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	removed, err := sandbox.Reap(ctx, f, sandbox.WithAll(), sandbox.WithRemoveTimeout(50*time.Millisecond))
	assert.Less(t, time.Since(start), time.Second)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "wedged")
	assert.Equal(t, []string{"a", "b"}, ids(removed))
	assert.NoError(t, ctx.Err(), "the reap's own deadline was not used up")
}
