package capacity_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/capacity"
)

func newBudget(t *testing.T, n int) *capacity.Budget {
	t.Helper()
	b, err := capacity.New(n)
	require.NoError(t, err)
	t.Cleanup(b.Close)
	return b
}

func TestBudgetBoundsAndAccounts(t *testing.T) {
	b := newBudget(t, 3)
	l, err := b.Acquire(context.Background(), 2)
	require.NoError(t, err)
	s1, s2 := l.Slot(), l.Slot()
	assert.Nil(t, l.Slot(), "a lease of 2 peels 2")
	s1.Mark(capacity.InUse)
	s2.Mark(capacity.Idle)
	_, ok := b.TryAcquire(2)
	assert.False(t, ok, "only one free")
	st := b.Stats()
	assert.Equal(t, 2, st.Live)
	assert.Equal(t, 1, st.States[capacity.InUse])
	assert.Equal(t, 1, st.States[capacity.Idle])
	s1.Release()
	s1.Release() // idempotent
	s2.Release()
	st = b.Stats()
	assert.Zero(t, st.Live)
	assert.Equal(t, 2, st.Peak)
	for _, s := range capacity.States {
		assert.Zero(t, st.States[s], s)
	}
}

func TestBudgetRejectsBadSizes(t *testing.T) {
	_, err := capacity.New(0)
	assert.Error(t, err)
	b := newBudget(t, 2)
	for _, n := range []int{0, 3} {
		_, err := b.Acquire(context.Background(), n)
		assert.Error(t, err, n)
	}
}

// TestBudgetTimesOutWithErrFull: a waiter whose deadline comes first gets
// ErrFull, and leaves the line (the next waiter is not stuck behind it).
func TestBudgetTimesOutWithErrFull(t *testing.T) {
	b := newBudget(t, 2)
	l, err := b.Acquire(context.Background(), 2)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = b.Acquire(ctx, 2)
	require.ErrorIs(t, err, capacity.ErrFull)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.EqualValues(t, 1, b.Stats().TimedOut)
	got := make(chan error, 1)
	go func() {
		l2, err := b.Acquire(context.Background(), 1)
		if err == nil {
			l2.Close()
		}
		got <- err
	}()
	time.Sleep(20 * time.Millisecond)
	l.Close()
	require.NoError(t, <-got)
}

// TestBudgetGroupsInLine: a group's slots come together and in order: a
// later single does not overtake a waiting group (no starvation), and
// background work never takes a slot while someone waits.
func TestBudgetGroupsInLine(t *testing.T) {
	b := newBudget(t, 4)
	l, err := b.Acquire(context.Background(), 3)
	require.NoError(t, err)
	order := make(chan string, 2)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		g, err := b.Acquire(context.Background(), 4)
		if assert.NoError(t, err) {
			order <- "group"
			g.Close()
		}
	}()
	require.Eventually(t, func() bool { return b.Stats().Waiting == 1 }, time.Second, time.Millisecond)
	go func() {
		defer wg.Done()
		s, err := b.Acquire(context.Background(), 1)
		if assert.NoError(t, err) {
			order <- "single"
			s.Close()
		}
	}()
	require.Eventually(t, func() bool { return b.Stats().Waiting == 2 }, time.Second, time.Millisecond)
	_, ok := b.TryAcquire(1)
	assert.False(t, ok, "background work waits behind demand although a slot is free")
	l.Close()
	wg.Wait()
	assert.Equal(t, "group", <-order)
	assert.Equal(t, "single", <-order)
}

// TestBudgetEvictsForWaiters: a waiter asks the evictor for exactly the
// room it lacks, once, and is served when the evicted slots come back.
func TestBudgetEvictsForWaiters(t *testing.T) {
	b := newBudget(t, 3)
	l, err := b.Acquire(context.Background(), 3)
	require.NoError(t, err)
	idle := []*capacity.Slot{l.Slot(), l.Slot(), l.Slot()}
	for _, s := range idle {
		s.Mark(capacity.Idle)
	}
	var asked atomic.Int64
	var mu sync.Mutex
	b.AddEvictor(func(n int) int {
		asked.Add(int64(n))
		mu.Lock()
		defer mu.Unlock()
		started := 0
		for ; started < n && len(idle) > 0; started++ {
			s := idle[0]
			idle = idle[1:]
			s.Evicted()
			go func() { time.Sleep(10 * time.Millisecond); s.Release() }()
		}
		return started
	})
	g, err := b.Acquire(context.Background(), 2)
	require.NoError(t, err)
	assert.EqualValues(t, 2, asked.Load(), "asked for the missing room once")
	assert.Len(t, idle, 1, "one idle sandbox kept")
	assert.Equal(t, 3, b.Stats().Live)
	g.Close()
}

func TestBudgetCloseFailsWaiters(t *testing.T) {
	b := newBudget(t, 1)
	_, err := b.Acquire(context.Background(), 1)
	require.NoError(t, err)
	got := make(chan error, 1)
	go func() { _, err := b.Acquire(context.Background(), 1); got <- err }()
	require.Eventually(t, func() bool { return b.Stats().Waiting == 1 }, time.Second, time.Millisecond)
	b.Close()
	assert.ErrorIs(t, <-got, capacity.ErrClosed)
}

func TestDefault(t *testing.T) {
	for _, tc := range []struct {
		mem, per int64
		want     int
	}{
		{24 << 30, 1 << 30, 18},
		{24 << 30, 4 << 30, 4},
		{1 << 30, 4 << 30, 1},
		{0, 1 << 30, 1},
	} {
		assert.Equal(t, tc.want, capacity.Default(tc.mem, tc.per), "%d/%d", tc.mem, tc.per)
	}
	m, err := capacity.MemTotal()
	require.NoError(t, err)
	assert.Positive(t, m)
}

// TestBudgetBoundsEngineOperations: beyond SetEngineOps' bound an engine
// operation waits for one to end, or fails with ctx's error.
func TestBudgetBoundsEngineOperations(t *testing.T) {
	b := newBudget(t, 4)
	require.Error(t, b.SetEngineOps(0))
	require.NoError(t, b.SetEngineOps(1))
	release, err := b.Engine(context.Background())
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, err = b.Engine(ctx)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "the second waits while the first runs")
	release()
	release2, err := b.Engine(context.Background())
	require.NoError(t, err, "free again once released")
	release2()
}

// TestBudgetHead: Head names who waits at the front of the line, in order.
func TestBudgetHead(t *testing.T) {
	b := newBudget(t, 1)
	_, waiting := b.Head()
	assert.False(t, waiting, "nobody waits")
	l, err := b.Acquire(context.Background(), 1)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for i, who := range []string{"busybox", "debian"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g, err := b.AcquireFor(context.Background(), 1, who)
			if assert.NoError(t, err) {
				g.Close()
			}
		}()
		require.Eventually(t, func() bool { return b.Stats().Waiting == i+1 }, time.Second, time.Millisecond)
	}
	who, waiting := b.Head()
	assert.True(t, waiting)
	assert.Equal(t, "busybox", who, "the first in line")
	l.Close()
	wg.Wait()
	_, waiting = b.Head()
	assert.False(t, waiting)
}

// TestLeaseGrow: a lease grows by free slots whoever waits, never past the
// budget.
func TestLeaseGrow(t *testing.T) {
	b := newBudget(t, 3)
	l, err := b.Acquire(context.Background(), 1)
	require.NoError(t, err)
	assert.True(t, l.Grow(1))
	assert.Equal(t, 2, l.Len())
	assert.False(t, l.Grow(2), "one slot free, two asked")
	assert.Equal(t, 2, l.Len())
	assert.Equal(t, 2, b.Stats().Live)
	l.Close()
	assert.Zero(t, b.Stats().Live)
}

// TestBudgetCountsOnlyDeadlinesAsTimeouts: a waiter that gives up (its
// context cancelled) is not a time-out; one whose deadline passes is.
func TestBudgetCountsOnlyDeadlinesAsTimeouts(t *testing.T) {
	b := newBudget(t, 1)
	l, err := b.Acquire(context.Background(), 1)
	require.NoError(t, err)
	defer l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = b.Acquire(ctx, 1)
	require.ErrorIs(t, err, capacity.ErrFull)
	assert.Zero(t, b.Stats().TimedOut, "given up")
	dctx, dcancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer dcancel()
	_, err = b.Acquire(dctx, 1)
	require.ErrorIs(t, err, capacity.ErrFull)
	assert.EqualValues(t, 1, b.Stats().TimedOut, "deadline")
}
