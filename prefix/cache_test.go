package prefix

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/trajectory"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func testTraj(n int) *trajectory.Trajectory {
	steps := make([]trajectory.Step, n)
	for i := range steps {
		steps[i] = trajectory.Step{Action: trajectory.KindShell, Command: "echo " + string(rune('a'+i))}
	}
	return &trajectory.Trajectory{ID: "t", Steps: steps}
}

// put stores an entry of size bytes for plan p as a build would.
func put(t *testing.T, c *Cache, p Plan, size int) {
	t.Helper()
	e, b, err := c.Lookup(context.Background(), p)
	require.NoError(t, err)
	require.Nil(t, e)
	require.NotNil(t, b)
	c.store(&Entry{Key: p.Key, State: &State{}, Created: c.cfg.now(), size: int64(size)})
	b.close()
}

func TestCacheLRUAndAge(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	c, err := New(WithMaxBytes(250), WithMaxAge(time.Minute), withClock(clk.now))
	require.NoError(t, err)
	traj := testTraj(6)
	plan := func(k int) Plan { return c.Plan("task", "task-d", "sha256:img", traj, k) }
	put(t, c, plan(1), 100)
	put(t, c, plan(2), 100)
	e, _, err := c.Lookup(context.Background(), plan(1)) // 1 is now the most recent
	require.NoError(t, err)
	require.NotNil(t, e)
	put(t, c, plan(3), 100) // over 250: the least recently used (2) goes
	st := c.Stats()
	assert.Equal(t, 2, st.Entries)
	assert.Equal(t, int64(200), st.Bytes)
	assert.Equal(t, int64(1), st.Evicted)
	_, b, err := c.Lookup(context.Background(), plan(2))
	require.NoError(t, err)
	require.NotNil(t, b, "evicted: a miss")
	b.close()
	clk.add(2 * time.Minute)
	_, b, err = c.Lookup(context.Background(), plan(1))
	require.NoError(t, err)
	require.NotNil(t, b, "aged out: a miss")
	b.close()
	assert.Zero(t, c.Stats().Entries)
}

func TestCacheKeysSeparate(t *testing.T) {
	c, err := New()
	require.NoError(t, err)
	traj, other := testTraj(4), testTraj(4)
	other.Steps[1].Command = "echo changed"
	base := c.Plan("t", "task-1", "sha256:a", traj, 3).Key
	for name, k := range map[string]Key{
		"task":  c.Plan("t", "task-2", "sha256:a", traj, 3).Key,
		"image": c.Plan("t", "task-1", "sha256:b", traj, 3).Key,
		"ref":   c.Plan("t", "task-1", "sha256:a", other, 3).Key,
		"j":     c.Plan("t", "task-1", "sha256:a", traj, 2).Key,
	} {
		assert.NotEqual(t, base, k, name)
	}
	assert.Equal(t, base, c.Plan("t", "task-1", "sha256:a", traj, 3).Key)
	same := testTraj(4)
	same.Steps[3].Command = "echo later"
	assert.Equal(t, base, c.Plan("t", "task-1", "sha256:a", same, 3).Key, "a change after J keeps the entry")
}

// TestCacheOneBuild: while one caller builds a key, others wait for it
// and then hit.
func TestCacheOneBuild(t *testing.T) {
	c, err := New()
	require.NoError(t, err)
	p := c.Plan("t", "task", "img", testTraj(3), 3)
	_, b, err := c.Lookup(context.Background(), p)
	require.NoError(t, err)
	require.NotNil(t, b)
	var wg sync.WaitGroup
	got := make([]*Entry, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, b2, err := c.Lookup(context.Background(), p)
			assert.NoError(t, err)
			assert.Nil(t, b2)
			got[i] = e
		}()
	}
	time.Sleep(20 * time.Millisecond)
	c.store(&Entry{Key: p.Key, State: &State{}, Created: time.Now(), size: 1})
	b.close()
	wg.Wait()
	for _, e := range got {
		assert.NotNil(t, e)
	}
	st := c.Stats()
	assert.Equal(t, int64(1), st.Misses)
	assert.Equal(t, int64(8), st.Hits)

	ctx, cancel := context.WithCancel(context.Background())
	p2 := c.Plan("t", "task", "img", testTraj(3), 2)
	_, b, _ = c.Lookup(context.Background(), p2)
	cancel()
	_, _, err = c.Lookup(ctx, p2)
	assert.ErrorIs(t, err, context.Canceled, "a waiter's ctx bounds its wait")
	b.close()
}

// TestCacheNotReusable: a build that finds a step not reusable lowers the
// plan of later resets, and the reason is logged once.
func TestCacheNotReusable(t *testing.T) {
	var logs bytes.Buffer
	c, err := New(WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	require.NoError(t, err)
	traj := testTraj(6)
	p := c.Plan("tk", "task", "img", traj, 5)
	require.Equal(t, 5, p.Key.J)
	_, b, err := c.Lookup(context.Background(), p)
	require.NoError(t, err)
	assert.NoError(t, b.settle(context.Background(), notReusable(2, "a background process is still running after it: pid 7")))
	b.close()
	for _, k := range []int{3, 5} {
		p := c.Plan("tk", "task", "img", traj, k)
		assert.Equal(t, 2, p.Key.J, "k=%d", k)
		require.NotNil(t, p.Why)
		assert.Equal(t, 2, p.Why.Step)
	}
	assert.Equal(t, 2, c.Plan("tk", "task", "img", traj, 2).Key.J)
	assert.Equal(t, 5, c.Plan("tk", "task", "other-img", traj, 5).Key.J, "another image finds out for itself")
	assert.Contains(t, logs.String(), "a background process is still running")
	assert.Contains(t, logs.String(), "task=tk")

	p = c.Plan("tk", "task", "img", traj, 2)
	_, b, _ = c.Lookup(context.Background(), p)
	assert.NoError(t, b.settle(context.Background(), notReusable(-1, "the image has no tar")))
	b.close()
	_, b, err = c.Lookup(context.Background(), p)
	assert.Nil(t, b)
	assert.ErrorIs(t, err, ErrNotReusable)
}
