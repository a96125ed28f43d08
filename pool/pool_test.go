package pool_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/sandbox"
)

// fakeRuntime creates in-memory sandboxes; failing makes Create fail.
type fakeRuntime struct {
	n       atomic.Int64
	failing atomic.Bool
	mu      sync.Mutex
	live    map[string]*fakeSandbox
	// gate, when set, holds every Remove until it is closed.
	gate chan struct{}
	// delay is how long every Create takes; prepare is added for a
	// recyclable one (Spec.Recycle), which reports it (RecyclePrepared).
	delay, prepare time.Duration
	// firstPrepare, when set, is the first recyclable Create's preparation
	// instead of prepare (a backend that lists an image whole once).
	firstPrepare time.Duration
	prepared     atomic.Int64 // recyclable creations so far
}

func newFakeRuntime() *fakeRuntime { return &fakeRuntime{live: map[string]*fakeSandbox{}} }

func (r *fakeRuntime) Create(ctx context.Context, spec sandbox.Spec) (sandbox.Sandbox, error) {
	if r.failing.Load() {
		return nil, fmt.Errorf("create: %w", sandbox.ErrUnavailable)
	}
	time.Sleep(r.delay)
	sb := &fakeSandbox{id: fmt.Sprintf("sb-%d", r.n.Add(1)), rt: r, labels: spec.Labels, recycle: spec.Recycle}
	if spec.Recycle {
		d := r.prepare
		if r.prepared.Add(1) == 1 && r.firstPrepare > 0 {
			d = r.firstPrepare
		}
		time.Sleep(d)
		sb.prepared = d
	}
	r.mu.Lock()
	r.live[sb.id] = sb
	r.mu.Unlock()
	return sb, nil
}

func (r *fakeRuntime) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.live)
}

type fakeSandbox struct {
	id       string
	rt       *fakeRuntime
	dead     atomic.Bool
	labels   map[string]string
	recycle  bool          // created with Spec.Recycle
	prepared time.Duration // what its Create spent preparing recycling
}

func (s *fakeSandbox) RecyclePrepared() time.Duration { return s.prepared }

func (s *fakeSandbox) ID() string { return s.id }
func (s *fakeSandbox) Exec(context.Context, sandbox.ExecRequest) (sandbox.ExecResult, error) {
	if s.dead.Load() {
		return sandbox.ExecResult{}, sandbox.ErrSandboxGone
	}
	return sandbox.ExecResult{}, nil
}
func (s *fakeSandbox) WriteFile(context.Context, string, []byte, fs.FileMode) error { return nil }
func (s *fakeSandbox) WriteFiles(context.Context, []sandbox.File) error             { return nil }
func (s *fakeSandbox) ReadFile(context.Context, string) ([]byte, error)             { return nil, nil }
func (s *fakeSandbox) Remove(context.Context) error {
	if s.rt.gate != nil {
		<-s.rt.gate
	}
	s.rt.mu.Lock()
	delete(s.rt.live, s.id)
	s.rt.mu.Unlock()
	return nil
}

func newPool(t *testing.T, rt pool.Creator, opts ...pool.Option) *pool.Pool {
	t.Helper()
	p, err := pool.New(rt, pool.Template{Key: "k", Spec: sandbox.Spec{Image: "img"}}, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	return p
}

func TestPoolFillsAndNeverHandsOutTwice(t *testing.T) {
	rt := newFakeRuntime()
	p := newPool(t, rt, pool.WithSize(4), pool.WithConcurrency(2))
	require.Eventually(t, func() bool { return p.Stats().Idle == 4 }, 2*time.Second, 5*time.Millisecond)
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				sb, err := p.Acquire(context.Background())
				if !assert.NoError(t, err) {
					return
				}
				mu.Lock()
				assert.False(t, seen[sb.ID()], "handed out twice: %s", sb.ID())
				seen[sb.ID()] = true
				mu.Unlock()
				p.Discard(sb)
			}
		}()
	}
	wg.Wait()
	assert.Len(t, seen, 200)
	require.Eventually(t, func() bool { return p.Stats().Idle == 4 }, 2*time.Second, 5*time.Millisecond, "refilled")
	st := p.Stats()
	assert.EqualValues(t, 200, st.Acquires)
	assert.EqualValues(t, 0, st.InUse)
	assert.GreaterOrEqual(t, st.Created, int64(204))
	require.NoError(t, p.Close(context.Background()))
	assert.Zero(t, rt.count(), "close removes idle sandboxes")
	_, err := p.Acquire(context.Background())
	assert.ErrorIs(t, err, pool.ErrClosed)
}

// TestPoolCountsRemovals: a discarded sandbox counts as removing until its
// background removal has finished (callers that time work on a settled
// machine wait for zero).
func TestPoolCountsRemovals(t *testing.T) {
	rt := newFakeRuntime()
	rt.gate = make(chan struct{})
	p := newPool(t, rt, pool.WithSize(2))
	var sbs []sandbox.Sandbox
	for range 2 {
		sb, err := p.Acquire(context.Background())
		require.NoError(t, err)
		sbs = append(sbs, sb)
	}
	for _, sb := range sbs {
		p.Discard(sb)
	}
	assert.EqualValues(t, 2, p.Stats().Removing)
	close(rt.gate)
	require.Eventually(t, func() bool { return p.Stats().Removing == 0 }, 2*time.Second, 5*time.Millisecond)
	assert.EqualValues(t, 2, p.Stats().Discarded)
}

func TestPoolDiscardsBrokenSandboxes(t *testing.T) {
	rt := newFakeRuntime()
	p := newPool(t, rt, pool.WithSize(2))
	require.Eventually(t, func() bool { return p.Stats().Idle == 2 }, 2*time.Second, 5*time.Millisecond)
	rt.mu.Lock()
	for _, sb := range rt.live {
		sb.dead.Store(true) // killed while idle
	}
	rt.mu.Unlock()
	sb, err := p.Acquire(context.Background())
	require.NoError(t, err)
	assert.False(t, sb.(*fakeSandbox).dead.Load())
	assert.EqualValues(t, 2, p.Stats().Broken)
}

func TestPoolAcquireHonoursDeadlineAndRecovers(t *testing.T) {
	rt := newFakeRuntime()
	rt.failing.Store(true)
	p := newPool(t, rt, pool.WithSize(1))
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := p.Acquire(ctx)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "runtime unavailable", "names the last create error")
	assert.Less(t, time.Since(start), time.Second)
	assert.Positive(t, p.Stats().Failed)
	rt.failing.Store(false) // the engine comes back
	ctx2, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel2()
	sb, err := p.Acquire(ctx2)
	require.NoError(t, err)
	assert.Equal(t, "k", sb.(*fakeSandbox).labels[pool.LabelPool])
}

func TestPoolSizeZeroCreatesOnDemand(t *testing.T) {
	rt := newFakeRuntime()
	p := newPool(t, rt, pool.WithSize(0))
	time.Sleep(20 * time.Millisecond)
	assert.Zero(t, rt.count())
	sb, err := p.Acquire(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, rt.count())
	p.Discard(sb)
	require.NoError(t, p.Close(context.Background()))
	assert.Zero(t, rt.count())
}

func TestPoolPrepareFailureRemoves(t *testing.T) {
	rt := newFakeRuntime()
	boom := errors.New("boom")
	p, err := pool.New(rt, pool.Template{Key: "k", Spec: sandbox.Spec{Image: "i"},
		Prepare: func(context.Context, sandbox.Sandbox) error { return boom }}, pool.WithSize(1))
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	require.Eventually(t, func() bool { return p.Stats().Failed > 0 }, 2*time.Second, 5*time.Millisecond)
	assert.Contains(t, p.Stats().LastError, "boom")
	assert.Zero(t, rt.count(), "a sandbox that failed to prepare is removed")
}

func TestPoolOptionsValidate(t *testing.T) {
	_, err := pool.New(newFakeRuntime(), pool.Template{Key: "k"}, pool.WithSize(-1))
	assert.Error(t, err)
	_, err = pool.New(newFakeRuntime(), pool.Template{Key: "k"}, pool.WithConcurrency(0))
	assert.Error(t, err)
}

// TestPoolLabelIsLegal: a key over 63 characters (a long task id and its
// spec hash) still makes a label every backend accepts.
func TestPoolLabelIsLegal(t *testing.T) {
	rt := newFakeRuntime()
	key := strings.Repeat("t", 100) + "-0123456789ab"
	p, err := pool.New(rt, pool.Template{Key: key}, pool.WithSize(0))
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	sb, err := p.Acquire(context.Background())
	require.NoError(t, err)
	got := sb.(*fakeSandbox).labels[pool.LabelPool]
	assert.True(t, sandbox.ValidLabelValue(got), got)
}

// TestPoolCloseWhileFillingMany: closing a pool while more creations are
// under way than its results buffer holds returns once they end: their
// results are read during the wait, so no creation blocks Close.
func TestPoolCloseWhileFillingMany(t *testing.T) {
	tests := []struct {
		name string
		size int
	}{
		{name: "a few under way", size: 8},
		{name: "more than the results buffer", size: 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rt := newFakeRuntime()
			rt.delay = 50 * time.Millisecond
			p, err := pool.New(rt, pool.Template{Key: "k", Spec: sandbox.Spec{Image: "img"}}, pool.WithSize(tc.size), pool.WithConcurrency(tc.size))
			require.NoError(t, err)
			require.Eventually(t, func() bool { return p.Stats().Creating >= int64(tc.size/2) }, 2*time.Second, time.Millisecond)
			done := make(chan error, 1)
			go func() { done <- p.Close(context.Background()) }()
			select {
			case err := <-done:
				require.NoError(t, err)
			case <-time.After(10 * time.Second):
				t.Fatal("Close did not return: a creation's report blocked it")
			}
			assert.Zero(t, rt.count(), "every sandbox created is removed")
		})
	}
}

// TestPoolDiscardNow: DiscardNow returns once the sandbox is removed (a
// Discard returns at once), and gives up at its ctx while the engine
// holds the removal.
func TestPoolDiscardNow(t *testing.T) {
	rt := newFakeRuntime()
	p := newPool(t, rt, pool.WithSize(0))
	sb, err := p.Acquire(context.Background())
	require.NoError(t, err)
	require.NoError(t, p.DiscardNow(context.Background(), sb))
	assert.Zero(t, rt.count(), "removed before DiscardNow returned")

	rt.gate = make(chan struct{})
	sb, err = p.Acquire(context.Background())
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, p.DiscardNow(ctx, sb), context.DeadlineExceeded)
	assert.Equal(t, 1, rt.count(), "still held by the engine")
	close(rt.gate)
	require.NoError(t, p.Close(context.Background()))
	assert.Zero(t, rt.count())
}
