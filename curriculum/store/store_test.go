package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/statedb"
)

func TestReopenResumesState(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	opts := []curriculum.Option{curriculum.WithStrategy(curriculum.SearchLearn)}
	e, s, err := OpenEngine(ctx, path, nil, opts...)
	require.NoError(t, err)
	require.NoError(t, e.Register(curriculum.TaskInfo{ID: "a", T: 9, Valid: []bool{true, true, false, true, true, true, true, true, true}}))
	require.NoError(t, e.Register(curriculum.TaskInfo{ID: "b", T: 5}))
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				id := []string{"a", "b"}[(g+i)%2]
				k, _, err := e.Next(id)
				assert.NoError(t, err)
				assert.NoError(t, e.Observe(id, k, (g*i)%3 != 0))
			}
		})
	}
	wg.Wait()
	want := map[string]curriculum.Status{}
	for _, id := range e.Tasks() {
		want[id], err = e.Status(id)
		require.NoError(t, err)
	}
	require.NoError(t, s.Close())
	assert.ErrorIs(t, s.RecordOutcome(curriculum.Outcome{Task: "a"}), ErrClosed)

	e2, s2, err := OpenEngine(ctx, path, nil, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s2.Close() })
	require.NoError(t, e2.Register(curriculum.TaskInfo{ID: "b", T: 5}), "re-registering a restored task keeps it")
	for id, w := range want {
		got, err := e2.Status(id)
		require.NoError(t, err)
		assert.Equal(t, w, got, id)
	}
	_, outs, err := s2.Load(ctx)
	require.NoError(t, err)
	assert.Len(t, outs, 200)
}

// BenchmarkPersistedObserve measures Observe with every outcome committed to
// SQLite (synchronous=FULL) before it returns, from many concurrent callers
// sharing commit groups, over 10k tasks; compare with
// curriculum's BenchmarkNextObserve (in memory).
func BenchmarkPersistedObserve(b *testing.B) {
	for _, par := range []int{1, 64} {
		b.Run(fmt.Sprintf("callers=%d", par*2), func(b *testing.B) {
			ctx := context.Background()
			e, s, err := OpenEngine(ctx, filepath.Join(b.TempDir(), "bench.db"), nil)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ids := make([]string, 10_000)
			for i := range ids {
				ids[i] = fmt.Sprintf("task-%05d", i)
				if err := e.Register(curriculum.TaskInfo{ID: ids[i], T: 20}); err != nil {
					b.Fatal(err)
				}
			}
			var mu sync.Mutex
			n := 0
			b.SetParallelism(par)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					mu.Lock()
					n++
					i := n
					mu.Unlock()
					id := ids[i%len(ids)]
					k, _, _ := e.Next(id)
					if err := e.Observe(id, k, i%2 == 0); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}

// TestNewRefusesNotDurable: a handle opened elsewhere with synchronous=OFF
// (or NORMAL) is refused rather than losing acknowledged outcomes to a
// power cut.
func TestNewRefusesNotDurable(t *testing.T) {
	for _, level := range []string{"OFF", "NORMAL"} {
		t.Run(level, func(t *testing.T) {
			dsn := "file:" + filepath.Join(t.TempDir(), "state.db") + "?" +
				url.Values{"_pragma": {"journal_mode(WAL)", "synchronous(" + level + ")"}}.Encode()
			db, err := sql.Open("sqlite", dsn)
			t.Cleanup(func() {
				if db != nil {
					_ = db.Close()
				}
			})
			require.NoError(t, err)
			db.SetMaxOpenConns(1)
			s, err := New(context.Background(), db)
			if s != nil {
				t.Cleanup(func() { _ = s.Close() })
			}
			require.ErrorIs(t, err, statedb.ErrNotDurable)
		})
	}
}
