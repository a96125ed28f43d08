package server

import (
	"fmt"

	"github.com/rbx-sandbox/rbx/pool"
)

// defaultTaskSeries is WithTaskSeries' default.
const defaultTaskSeries = 100

// WithTaskSeries bounds the metrics' cardinality: serving at most n
// tasks, the per-task series (rbx_serve_resets_total{task},
// rbx_serve_reset_seconds{task}, rbx_serve_outcomes_total{task} and the
// rbx_pool_* {pool} gauges) carry each task's id; serving more, they are
// summed under task="_all" (pool="_all"), so 10,000 tasks do not make
// 300,000 series a scrape (default 100; per-task figures stay in GET
// /v1/tasks). 0 always aggregates.
func WithTaskSeries(n int) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("task series %d: expected ≥ 0", n)
		}
		c.series = n
		return nil
	}
}

// task is the label value of a task's series.
func (m *metrics) task(id string) string {
	if m.perTask {
		return id
	}
	return AllTasks
}

// sumPools adds every pool's counters into one, keyed AllTasks.
func sumPools(stats []pool.Stats) pool.Stats {
	sum := pool.Stats{Key: AllTasks}
	for _, st := range stats {
		sum.Size += st.Size
		sum.Idle += st.Idle
		sum.Creating += st.Creating
		sum.InUse += st.InUse
		sum.Removing += st.Removing
		sum.Created += st.Created
		sum.Discarded += st.Discarded
		sum.Broken += st.Broken
		sum.Failed += st.Failed
		sum.Recycled += st.Recycled
		sum.RecycleFailed += st.RecycleFailed
		sum.WaitTotal += st.WaitTotal
	}
	return sum
}
