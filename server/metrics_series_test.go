package server_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/corpus/corpustest"
	"github.com/rbx-sandbox/rbx/server"
)

// seriesOf counts a scrape's series of a metric by the value of label.
func seriesOf(t *testing.T, h *harness, metric, label string) map[string]int {
	t.Helper()
	code, raw := h.call("GET", "/metrics", nil, nil)
	require.Equal(t, 200, code)
	out := map[string]int{}
	for line := range strings.Lines(string(raw)) {
		if !strings.HasPrefix(line, metric+"{") {
			continue
		}
		_, v, _ := strings.Cut(line, label+`="`)
		v, _, _ = strings.Cut(v, `"`)
		out[v]++
	}
	return out
}

// TestMetricsCardinalityIsBounded: past WithTaskSeries' bound, the
// per-task and per-pool series are one aggregate, whatever the number of
// tasks; under it they name each task.
func TestMetricsCardinalityIsBounded(t *testing.T) {
	tests := []struct {
		name   string
		bound  int
		labels int    // distinct pool label values: one class, one pool
		task   string // the label a reset of task 0 is counted under
	}{
		{name: "aggregated past the bound", bound: 100, labels: 1, task: server.AllTasks},
		{name: "per task under it", bound: 1000, labels: 1, task: corpustest.ID(0)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := manyHarness(t, 250, server.WithTaskSeries(tc.bound))
			ep := h.reset(corpustest.ID(0), 0)
			h.call("POST", "/v1/episodes/"+ep.ID+"/close", nil, nil)
			pools := seriesOf(t, h, "rbx_pool_idle", "pool")
			assert.Len(t, pools, tc.labels)
			resets := seriesOf(t, h, "rbx_serve_resets_total", "task")
			assert.Equal(t, map[string]int{tc.task: 1}, resets)
			assert.Len(t, seriesOf(t, h, "rbx_serve_reset_seconds_bucket", "task"), 1)
		})
	}
}
