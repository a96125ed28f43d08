package capacity_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/capacity"
)

// TestPatientWaiter: a patient waiter asks no evictor for room and Front
// says it is patient until its patience ends; then the evictor is asked,
// and the room it frees serves the waiter. An impatient waiter asks at
// once.
func TestPatientWaiter(t *testing.T) {
	tests := []struct {
		name     string
		patience time.Duration
		// evictedBy is when the evictor must have been asked, at the
		// latest; quietFor how long it must not be asked first.
		quietFor, evictedBy time.Duration
	}{
		{name: "impatient", patience: 0, quietFor: 0, evictedBy: time.Second},
		{name: "patient", patience: 300 * time.Millisecond, quietFor: 200 * time.Millisecond, evictedBy: 2 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBudget(t, 1)
			l, err := b.Acquire(context.Background(), 1)
			require.NoError(t, err)
			idle := l.Slot()
			idle.Mark(capacity.Idle)
			var asked atomic.Int64
			remove := b.AddEvictor(func(n int) int {
				if asked.Add(1) > 1 {
					return 0
				}
				idle.Evicted()
				go idle.Release()
				return 1
			})
			t.Cleanup(remove)
			got := make(chan error, 1)
			start := time.Now()
			go func() {
				g, err := b.AcquireFor(context.Background(), 1, "debian", capacity.Patient(tc.patience))
				if err == nil {
					g.Close()
				}
				got <- err
			}()
			require.Eventually(t, func() bool { return b.Stats().Waiting == 1 || asked.Load() > 0 }, time.Second, time.Millisecond)
			if tc.quietFor > 0 {
				who, patient, waiting := b.Front()
				assert.True(t, waiting)
				assert.True(t, patient, "within its patience")
				assert.Equal(t, "debian", who)
				time.Sleep(tc.quietFor)
				assert.Zero(t, asked.Load(), "a patient waiter asks no evictor")
			}
			select {
			case err := <-got:
				require.NoError(t, err)
			case <-time.After(tc.evictedBy):
				t.Fatalf("not served within %v", tc.evictedBy)
			}
			assert.EqualValues(t, 1, asked.Load(), "the evictor made the room")
			assert.GreaterOrEqual(t, time.Since(start), tc.patience, "not before its patience ended")
		})
	}
}

// TestFrontNobody: Front with nobody in line.
func TestFrontNobody(t *testing.T) {
	b := newBudget(t, 1)
	who, patient, waiting := b.Front()
	assert.Empty(t, who)
	assert.False(t, patient)
	assert.False(t, waiting)
}
