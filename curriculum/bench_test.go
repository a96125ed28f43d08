package curriculum

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

const benchTasks = 10_000

func benchIDs() []string {
	ids := make([]string, benchTasks)
	for i := range ids {
		ids[i] = fmt.Sprintf("task-%05d", i)
	}
	return ids
}

// BenchmarkNextObserve measures one Next plus one Observe (one op) over
// 10k tasks of 20 steps, in memory, next to a baseline that only locks a
// map entry per op; both report ops/s.
func BenchmarkNextObserve(b *testing.B) {
	ids := benchIDs()
	for _, s := range Strategies {
		e, err := New(WithStrategy(s))
		if err != nil {
			b.Fatal(err)
		}
		for _, id := range ids {
			if err := e.Register(TaskInfo{ID: id, T: 20}); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(string(s)+"/serial", func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				id := ids[i%benchTasks]
				k, _, _ := e.Next(id)
				if err := e.Observe(id, k, i%3 != 0); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
		})
		b.Run(string(s)+"/parallel", func(b *testing.B) {
			var n atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := int(n.Add(1))
					id := ids[i%benchTasks]
					k, _, _ := e.Next(id)
					if err := e.Observe(id, k, i%3 != 0); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
	b.Run("baseline-mutex-map/parallel", func(b *testing.B) {
		type entry struct {
			mu sync.Mutex
			n  int
		}
		var mu sync.RWMutex
		m := map[string]*entry{}
		for _, id := range ids {
			m[id] = &entry{}
		}
		var n atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				i := int(n.Add(1))
				mu.RLock()
				en := m[ids[i%benchTasks]]
				mu.RUnlock()
				en.mu.Lock()
				en.n++
				en.mu.Unlock()
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	})
}
