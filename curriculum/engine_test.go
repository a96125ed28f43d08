package curriculum

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

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

func TestConcurrentUse(t *testing.T) {
	e, err := New(WithStrategy(SearchLearn))
	require.NoError(t, err)
	for i := range 16 {
		require.NoError(t, e.Register(TaskInfo{ID: fmt.Sprint(i), T: 12}))
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 0))
			for range 2000 {
				id := fmt.Sprint(rng.IntN(16))
				k, _, err := e.NextGroup(id, 1+rng.IntN(4))
				assert.NoError(t, err)
				assert.NoError(t, e.Observe(id, k, rng.IntN(2) == 0))
			}
		})
	}
	wg.Wait()
}
