package pool_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/capacity"
	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/sandbox"
)

// TestPoolWarmsWithinTheBudget: the filler takes only free slots; a
// demand acquisition gets room by evicting an idle sandbox of another
// pool, and nothing exceeds the budget.
func TestPoolWarmsWithinTheBudget(t *testing.T) {
	rt := newFakeRuntime()
	b, err := capacity.New(3)
	require.NoError(t, err)
	a := newPool(t, rt, pool.WithSize(5), pool.WithBudget(b))
	require.Eventually(t, func() bool { return a.Stats().Idle == 3 }, 2*time.Second, 5*time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	assert.Equal(t, 3, rt.count(), "the filler stops at the budget")
	b.AddEvictor(func(n int) int { return a.Evict(n) })
	other, err := pool.New(rt, pool.Template{Key: "o", Spec: sandbox.Spec{Image: "img"}}, pool.WithSize(0), pool.WithBudget(b))
	require.NoError(t, err)
	t.Cleanup(func() { _ = other.Close(context.Background()) })
	a.SetSize(0) // nobody asks for a any more: it must not refill behind the eviction
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	sb, err := other.Acquire(ctx)
	require.NoError(t, err)
	assert.LessOrEqual(t, rt.count(), 3)
	assert.LessOrEqual(t, b.Stats().Peak, 3)
	other.Discard(sb)
}

// TestPoolSetSizeTrims: a smaller target removes idle sandboxes at once.
func TestPoolSetSizeTrims(t *testing.T) {
	rt := newFakeRuntime()
	p := newPool(t, rt, pool.WithSize(4))
	require.Eventually(t, func() bool { return p.Stats().Idle == 4 }, 2*time.Second, 5*time.Millisecond)
	p.SetSize(1)
	assert.Equal(t, 1, p.Stats().Idle)
	require.Eventually(t, func() bool { return rt.count() == 1 }, 2*time.Second, 5*time.Millisecond)
}

// TestPoolRecycles: a returned sandbox is recycled and handed out again
// while it is cheaper; a failed recycle removes it.
func TestPoolRecycles(t *testing.T) {
	tests := []struct {
		name        string
		fail        bool
		wantReused  bool
		wantRemoved bool
	}{
		{name: "recycled", wantReused: true},
		{name: "doubt removes", fail: true, wantRemoved: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rt := newFakeRuntime()
			var calls atomic.Int64
			rec := func(ctx context.Context, sb sandbox.Sandbox) error {
				calls.Add(1)
				if tc.fail {
					return errors.New("a process would not die")
				}
				return nil
			}
			p := newPool(t, rt, pool.WithSize(1), pool.WithRecycle(rec))
			require.Eventually(t, func() bool { return p.Stats().Idle == 1 }, 2*time.Second, 5*time.Millisecond)
			sb, err := p.Acquire(context.Background())
			require.NoError(t, err)
			p.SetSize(1)
			p.Return(sb)
			require.Eventually(t, func() bool { return calls.Load() == 1 }, 2*time.Second, 5*time.Millisecond)
			require.Eventually(t, func() bool { return p.Stats().Idle == 1 }, 2*time.Second, 5*time.Millisecond)
			again, err := p.Acquire(context.Background())
			require.NoError(t, err)
			assert.Equal(t, tc.wantReused, again.ID() == sb.ID())
			st := p.Stats()
			if tc.wantRemoved {
				assert.EqualValues(t, 1, st.RecycleFailed)
			} else {
				assert.EqualValues(t, 1, st.Recycled)
			}
		})
	}
}

// TestPoolRecyclingStopsWhenDearer: recycles slower than a fresh sandbox
// turn recycling off after the samples.
func TestPoolRecyclingStopsWhenDearer(t *testing.T) {
	rt := newFakeRuntime()
	slow := func(ctx context.Context, sb sandbox.Sandbox) error { time.Sleep(20 * time.Millisecond); return nil }
	p, err := pool.New(rt, pool.Template{Key: "k", Spec: sandbox.Spec{Image: "img", Recycle: true}}, pool.WithSize(1), pool.WithRecycle(slow))
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	for i := 0; i < 8 && p.Recycling(); i++ {
		sb, err := p.Acquire(context.Background())
		require.NoError(t, err)
		assert.True(t, sb.(*fakeSandbox).recycle, "created recyclable while recycling is on")
		p.Return(sb)
		require.Eventually(t, func() bool { return p.Stats().Idle == 1 }, 2*time.Second, time.Millisecond)
	}
	assert.False(t, p.Recycling(), "a 20 ms recycle is dearer than the fake's instant create")
	// From now on a sandbox is only removed after its episode: it is
	// created without paying for recycling.
	var sb sandbox.Sandbox
	require.Eventually(t, func() bool {
		got, err := p.Acquire(context.Background())
		require.NoError(t, err)
		if !got.(*fakeSandbox).recycle {
			sb = got
			return true
		}
		p.Return(got)
		return false
	}, 2*time.Second, time.Millisecond)
	p.Return(sb)
}

// TestPoolKeepsItsSandboxForAPatientWaiter: a class's sandbox given back
// while another class waits first in line is kept (recycled, idle) when
// that class has sandboxes in flight of its own that will serve it
// (capacity.Patient) — no removal, no creation for it — and removed for
// the waiter when that class has none in flight.
func TestPoolKeepsItsSandboxForAPatientWaiter(t *testing.T) {
	tests := []struct {
		name        string
		bInFlight   bool // the waiting class has a sandbox in flight
		wantKept    bool
		wantCreated int64 // by the waiting class
	}{
		{name: "patient: its own comes back", bInFlight: true, wantKept: true, wantCreated: 1},
		{name: "nothing in flight: room is made", bInFlight: false, wantKept: false, wantCreated: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rt := newFakeRuntime()
			rt.delay = 50 * time.Millisecond // a creation the waiter's patience is measured by
			b, err := capacity.New(2)
			require.NoError(t, err)
			recycle := func(ctx context.Context, sb sandbox.Sandbox) error { return nil }
			a := newPool(t, rt, pool.WithSize(0), pool.WithBudget(b), pool.WithRecycle(recycle))
			bp, err := pool.New(rt, pool.Template{Key: "b", Spec: sandbox.Spec{Image: "img"}}, pool.WithSize(0), pool.WithBudget(b), pool.WithRecycle(recycle))
			require.NoError(t, err)
			t.Cleanup(func() { _ = bp.Close(context.Background()) })
			b.AddEvictor(func(n int) int { return a.Evict(n) })
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			a1, err := a.Acquire(ctx)
			require.NoError(t, err)
			var second sandbox.Sandbox // fills the budget
			if tc.bInFlight {
				second, err = bp.Acquire(ctx)
			} else {
				second, err = a.Acquire(ctx)
			}
			require.NoError(t, err)
			a.SetSize(1) // a wants one warm sandbox back
			got := make(chan sandbox.Sandbox, 1)
			go func() {
				sb, err := bp.Acquire(ctx)
				assert.NoError(t, err)
				got <- sb
			}()
			require.Eventually(t, func() bool { return b.Stats().Waiting == 1 }, 2*time.Second, time.Millisecond)
			_, patient, _ := b.Front()
			assert.Equal(t, tc.bInFlight, patient)
			a.Return(a1)
			if tc.wantKept {
				require.Eventually(t, func() bool { return a.Stats().Idle == 1 }, 2*time.Second, time.Millisecond)
				bp.Return(second) // b's own comes back within its patience
			}
			var sb sandbox.Sandbox
			select {
			case sb = <-got:
			case <-ctx.Done():
				t.Fatal("the waiter was not served")
			}
			if tc.wantKept {
				assert.Equal(t, second.ID(), sb.ID(), "served by its own class's sandbox")
				assert.Equal(t, 1, a.Stats().Idle, "a kept its sandbox")
			} else {
				assert.EqualValues(t, 1, a.Stats().Removed+a.Stats().Removing, "a's sandbox removed for the waiter")
			}
			assert.Equal(t, tc.wantCreated, bp.Stats().Created)
			assert.LessOrEqual(t, b.Stats().Peak, 2)
		})
	}
}

// TestPoolRecyclingWeighsThePreparation: a recyclable creation that pays a
// preparation (the fresh listing) a plain one does not keeps recycling on
// while recycles avoid creations, and turns it off when sandboxes are
// created anew anyway (one creation per recycle here): then every creation
// pays the preparation for nothing. What counts is the recent
// preparation: a backend that lists an image whole for its first sandbox
// only (docker) keeps recycling on with a cheap one after.
func TestPoolRecyclingWeighsThePreparation(t *testing.T) {
	tests := []struct {
		name          string
		churn         bool          // each round also creates a sandbox it then discards
		first         time.Duration // the first creation's preparation (0: as the others)
		prepare       time.Duration
		wantRecycling bool
	}{
		{name: "recycles avoid creations", prepare: 30 * time.Millisecond, wantRecycling: true},
		{name: "created anew anyway", churn: true, prepare: 30 * time.Millisecond, wantRecycling: false},
		{name: "created anew, only the first listing dear", churn: true, first: 300 * time.Millisecond, prepare: time.Millisecond, wantRecycling: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rt := newFakeRuntime()
			rt.delay, rt.prepare, rt.firstPrepare = 5*time.Millisecond, tc.prepare, tc.first
			instant := func(context.Context, sandbox.Sandbox) error { return nil }
			p, err := pool.New(rt, pool.Template{Key: "k", Spec: sandbox.Spec{Image: "img", Recycle: true}}, pool.WithSize(0), pool.WithRecycle(instant))
			require.NoError(t, err)
			t.Cleanup(func() { _ = p.Close(context.Background()) })
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			p.SetSize(2) // a sandbox given back is wanted: recycled, kept
			for i := 0; i < 10 && p.Recycling(); i++ {
				// The warm set full first, so a sandbox given back is wanted.
				require.Eventually(t, func() bool { return p.Stats().Idle == 2 }, 2*time.Second, time.Millisecond)
				a, err := p.Acquire(ctx)
				require.NoError(t, err)
				if tc.churn {
					b, err := p.Acquire(ctx)
					require.NoError(t, err)
					p.Discard(b) // the filler creates its replacement
				}
				recycled := p.Stats().Recycled
				p.Return(a)
				// The recycle that decides may turn recycling off between the
				// loop's check and this return: then a is removed, not recycled.
				require.Eventually(t, func() bool { return p.Stats().Recycled > recycled || !p.Recycling() }, 2*time.Second, time.Millisecond)
			}
			st := p.Stats()
			assert.Equal(t, tc.wantRecycling, p.Recycling(), "%+v", st)
			assert.InDelta(t, float64(rt.prepare), float64(st.PrepareRecent), float64(5*time.Millisecond), "the recent preparation is measured")
			if tc.first == 0 {
				assert.InDelta(t, float64(rt.prepare), float64(st.PrepareMean), float64(5*time.Millisecond), "the preparation is measured")
			}
		})
	}
}

// TestPoolYield: a class waiting at the front of the line, with nothing of
// its own in flight, gets the room of a sandbox given back when the
// returning class yields (WithYield: reset's max-min rule), not otherwise
// (kept for the returning class's next resets; the waiter waits, and the
// evictor — reset's rule too — spares it).
func TestPoolYield(t *testing.T) {
	tests := []struct {
		name  string
		yield bool
	}{
		{name: "yields: room is made", yield: true},
		{name: "keeps: the waiter waits", yield: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rt := newFakeRuntime()
			b, err := capacity.New(2)
			require.NoError(t, err)
			recycle := func(ctx context.Context, sb sandbox.Sandbox) error { return nil }
			var asked []string
			a := newPool(t, rt, pool.WithSize(0), pool.WithBudget(b), pool.WithRecycle(recycle),
				pool.WithYield(func(front string, held int) bool {
					asked = append(asked, fmt.Sprintf("%s %d", front, held))
					return tc.yield
				}))
			bp, err := pool.New(rt, pool.Template{Key: "b", Spec: sandbox.Spec{Image: "img"}}, pool.WithSize(0), pool.WithBudget(b), pool.WithRecycle(recycle))
			require.NoError(t, err)
			t.Cleanup(func() { _ = bp.Close(context.Background()) })
			b.AddEvictor(func(n int) int {
				if !tc.yield {
					return 0
				}
				return a.Evict(n)
			})
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			a1, err := a.Acquire(ctx)
			require.NoError(t, err)
			_, err = a.Acquire(ctx)
			require.NoError(t, err)
			a.SetSize(2)
			wctx, wcancel := context.WithTimeout(ctx, 500*time.Millisecond)
			defer wcancel()
			got := make(chan error, 1)
			go func() {
				_, err := bp.Acquire(wctx)
				got <- err
			}()
			require.Eventually(t, func() bool { return b.Stats().Waiting == 1 }, 2*time.Second, time.Millisecond)
			a.Return(a1)
			err = <-got
			assert.Equal(t, []string{"b 2"}, asked, "asked once, for the front class, counting the sandbox given back")
			if tc.yield {
				require.NoError(t, err)
				assert.EqualValues(t, 1, a.Stats().Removed+a.Stats().Removing, "a's sandbox removed for the waiter")
				assert.EqualValues(t, 1, bp.Stats().Created)
			} else {
				require.Error(t, err, "b waits: a keeps its sandbox")
				assert.Equal(t, 1, a.Stats().Idle, "a kept its sandbox")
				assert.EqualValues(t, 0, bp.Stats().Created)
			}
			assert.LessOrEqual(t, b.Stats().Peak, 2)
		})
	}
}
