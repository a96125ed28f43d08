package curriculum

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGroupRequestsShareOneCheckpoint(t *testing.T) {
	e := newEngine(t, TaskInfo{ID: "t", T: 8}, WithStrategy(SearchLearn), WithAnchors(4))
	// A group of 8 covers anchor 0's N_probe = 1; the next group moves on.
	k, p, err := e.NextGroup("t", 8)
	require.NoError(t, err)
	assert.Equal(t, 0, k)
	assert.Equal(t, PurposeProbe, p)
	k, _, err = e.NextGroup("t", 8)
	require.NoError(t, err)
	assert.Equal(t, 2, k)

	seq := newEngine(t, TaskInfo{ID: "t", T: 8})
	k, p, err = seq.NextGroup("t", 16)
	require.NoError(t, err)
	assert.Equal(t, 7, k)
	assert.Equal(t, PurposeRollback, p)
	for range 16 {
		require.NoError(t, seq.Observe("t", k, true))
	}
	k, _, err = seq.NextGroup("t", 4)
	require.NoError(t, err)
	assert.Equal(t, 6, k)

	_, _, err = seq.NextGroup("t", 0)
	assert.ErrorIs(t, err, ErrInvalidOption)
}

func TestEngineErrors(t *testing.T) {
	e := newEngine(t, TaskInfo{ID: "t", T: 3, Valid: []bool{true, false, true}})
	_, _, err := e.Next("nope")
	assert.ErrorIs(t, err, ErrUnknownTask)
	assert.ErrorIs(t, e.Observe("nope", 0, true), ErrUnknownTask)
	for _, k := range []int{-1, 1, 3} {
		assert.ErrorIs(t, e.Observe("t", k, true), ErrInvalidCheckpoint, "k=%d", k)
	}
	assert.NoError(t, e.Register(TaskInfo{ID: "t", T: 3, Valid: []bool{true, false, true}}), "same shape again")
	assert.ErrorIs(t, e.Register(TaskInfo{ID: "t", T: 4}), ErrTaskConflict)
	for _, ti := range []TaskInfo{{ID: "", T: 1}, {ID: "x", T: 0}, {ID: "x", T: 2, Valid: []bool{true}}, {ID: "x", T: 1, Valid: []bool{false}}} {
		assert.ErrorIs(t, e.Register(ti), ErrInvalidTask, "%+v", ti)
	}
	for _, o := range []Option{WithStrategy("nope"), WithWindow(0), WithWindow(65), WithTheta(0), WithThetaHigh(1.5)} {
		_, err := New(o)
		assert.ErrorIs(t, err, ErrInvalidOption)
	}
	_, err = New(WithTheta(0.9), WithThetaHigh(0.6))
	assert.ErrorIs(t, err, ErrInvalidOption)
}

func TestStuckDetection(t *testing.T) {
	e := newEngine(t, TaskInfo{ID: "t", T: 4}, WithStuckAfter(5))
	for range 4 {
		require.NoError(t, e.Observe("t", 3, false))
	}
	stuck, err := e.Stuck("t")
	require.NoError(t, err)
	assert.Empty(t, stuck)
	require.NoError(t, e.Observe("t", 3, false))
	stuck, err = e.Stuck("t")
	require.NoError(t, err)
	assert.Equal(t, []int{3}, stuck)
	require.NoError(t, e.Observe("t", 3, true))
	stuck, err = e.Stuck("t")
	require.NoError(t, err)
	assert.Empty(t, stuck, "a success clears the flag")
}

// memRecorder keeps what it is given, for Restore.
type memRecorder struct {
	mu       sync.Mutex
	tasks    []TaskInfo
	outcomes []Outcome
	rebases  []Rebase
}

func (m *memRecorder) RecordRebase(rb Rebase) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	rb.After = len(m.outcomes)
	m.rebases = append(m.rebases, rb)
	return nil
}

func (m *memRecorder) RecordTask(ti TaskInfo) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tasks = append(m.tasks, ti)
	return nil
}

func (m *memRecorder) RecordOutcome(o Outcome) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.outcomes = append(m.outcomes, o)
	return nil
}

func TestRestoreReproducesState(t *testing.T) {
	for _, s := range Strategies {
		t.Run(string(s), func(t *testing.T) {
			rec := &memRecorder{}
			opts := []Option{WithStrategy(s), WithStuckAfter(6)}
			a, err := New(append(opts, WithRecorder(rec))...)
			require.NoError(t, err)
			rng := rand.New(rand.NewPCG(1, 2))
			for i := range 5 {
				require.NoError(t, a.Register(TaskInfo{ID: fmt.Sprint("task", i), T: 6 + i}))
			}
			for range 2000 {
				id := fmt.Sprint("task", rng.IntN(5))
				k, _, err := a.Next(id)
				require.NoError(t, err)
				require.NoError(t, a.Observe(id, k, rng.Float64() < 0.6))
			}
			b, err := New(opts...)
			require.NoError(t, err)
			require.NoError(t, b.Restore(rec.tasks, rec.outcomes))
			for _, id := range a.Tasks() {
				want, err := a.Status(id)
				require.NoError(t, err)
				got, err := b.Status(id)
				require.NoError(t, err)
				assert.Equal(t, want, got)
			}
		})
	}
}

// TestConcurrentUse: 8 goroutines drive 4 tasks at once. Every k handed
// out is a checkpoint of its task, every outcome is counted once at its k
// with its verdict, and the recorder saw them in the order the engine
// applied them: restoring its log reproduces every task's state.
// yieldingRecorder is a memRecorder that yields after each outcome, so an
// engine that recorded outside its task lock would let another outcome be
// applied in between.
type yieldingRecorder struct{ memRecorder }

func (y *yieldingRecorder) RecordOutcome(o Outcome) error {
	err := y.memRecorder.RecordOutcome(o)
	runtime.Gosched()
	return err
}

func TestConcurrentUse(t *testing.T) {
	const tasks, T, goroutines, rounds = 4, 12, 8, 2000
	rec := &yieldingRecorder{}
	e, err := New(WithStrategy(SearchLearn), WithRecorder(rec))
	require.NoError(t, err)
	for i := range tasks {
		require.NoError(t, e.Register(TaskInfo{ID: fmt.Sprint(i), T: T}))
	}
	seen := make([][]Outcome, goroutines) // what each goroutine observed
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 0))
			for range rounds {
				id := fmt.Sprint(rng.IntN(tasks))
				k, _, err := e.NextGroup(id, 1+rng.IntN(4))
				if !assert.NoError(t, err) || !assert.True(t, k >= 0 && k < T, "k=%d", k) {
					return
				}
				ok := rng.IntN(2) == 0
				if !assert.NoError(t, e.Observe(id, k, ok)) {
					return
				}
				seen[g] = append(seen[g], Outcome{Task: id, K: k, Success: ok})
			}
		})
	}
	wg.Wait()

	want := map[string]map[int][2]int{} // task → k → {episodes, successes}
	for _, outs := range seen {
		require.Len(t, outs, rounds)
		for _, o := range outs {
			if want[o.Task] == nil {
				want[o.Task] = map[int][2]int{}
			}
			c := want[o.Task][o.K]
			c[0]++
			if o.Success {
				c[1]++
			}
			want[o.Task][o.K] = c
		}
	}
	require.Len(t, rec.outcomes, goroutines*rounds, "every outcome recorded once")
	restored, err := New(WithStrategy(SearchLearn))
	require.NoError(t, err)
	require.NoError(t, restored.Restore(rec.tasks, rec.outcomes))
	for i := range tasks {
		id := fmt.Sprint(i)
		st, err := e.Status(id)
		require.NoError(t, err)
		got := map[int][2]int{}
		for _, c := range st.Checkpoints {
			got[c.K] = [2]int{c.Episodes, c.Successes}
		}
		assert.Equal(t, want[id], got, "task %s: episodes and successes per k", id)
		again, err := restored.Status(id)
		require.NoError(t, err)
		assert.Equal(t, st, again, "task %s: the recorded order is the applied order", id)
	}
}

// blockingRecorder holds its first RecordOutcome until another outcome is
// applied (a violation) or a moment passes.
type blockingRecorder struct {
	memRecorder
	once      sync.Once
	inRecord  chan struct{}
	other     chan struct{} // closed when the second Observe returned
	violation bool
}

func (b *blockingRecorder) RecordOutcome(o Outcome) error {
	first := false
	b.once.Do(func() { first = true })
	if first {
		close(b.inRecord)
		select {
		case <-b.other:
			b.violation = true
		case <-time.After(200 * time.Millisecond):
		}
	}
	return b.memRecorder.RecordOutcome(o)
}

// TestObserveRecordsUnderTheTaskLock: while one outcome is being recorded,
// another outcome of the same task cannot be applied, so the stored order
// is the applied order (what Restore relies on).
func TestObserveRecordsUnderTheTaskLock(t *testing.T) {
	rec := &blockingRecorder{inRecord: make(chan struct{}), other: make(chan struct{})}
	e, err := New(WithRecorder(rec))
	require.NoError(t, err)
	require.NoError(t, e.Register(TaskInfo{ID: "t", T: 4}))
	first := make(chan error, 1)
	go func() { first <- e.Observe("t", 3, true) }()
	<-rec.inRecord
	go func() {
		assert.NoError(t, e.Observe("t", 3, false))
		close(rec.other)
	}()
	require.NoError(t, <-first)
	<-rec.other
	assert.False(t, rec.violation, "an outcome was applied while another of the same task was being recorded")
	assert.Equal(t, []Outcome{{Task: "t", K: 3, Success: true}, {Task: "t", K: 3, Success: false}}, rec.outcomes)
}
