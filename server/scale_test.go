package server_test

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/corpus/corpustest"
)

// scaleTasks is the corpus size of the scale tests (fewer with -short).
func scaleTasks() int {
	if testing.Short() {
		return 1000
	}
	return 10000
}

// TestStartWithManyTasks starts a server on 10,000 generated tasks the
// way rbx serve does, twice on the same state database (the second time
// with 10 outcomes per task stored): both starts see every task, the
// second restores each task's history, and each stays within a generous
// bound (the figures are BenchmarkStartManyTasks').
func TestStartWithManyTasks(t *testing.T) {
	n := scaleTasks()
	dir, state := corpusDir(t, n), statePath(t)
	for _, run := range []string{"first", "second"} {
		if run == "second" {
			seedState(t, state, n, 10)
		}
		srv, st := startFrom(t, dir, state)
		t.Logf("%s start, %d tasks: discover %v, state %v, server.New %v (CPU %v)", run, n, st.discover, st.state, st.server, st.cpu)
		assert.Less(t, st.total(), 60*time.Second, run)
		hs := httptest.NewServer(srv.Handler())
		h := &harness{t: t, srv: srv, url: hs.URL}
		var health map[string]any
		code, _ := h.call("GET", "/healthz", nil, &health)
		require.Equal(t, 200, code)
		assert.EqualValues(t, n, health["tasks"], run)
		var cur struct {
			Tasks []struct {
				Checkpoints []struct{ Episodes int } `json:"checkpoints"`
				History     []any                    `json:"history"`
			} `json:"tasks"`
		}
		code, _ = h.call("GET", "/v1/curriculum?task="+corpustest.ID(n-1), nil, &cur)
		hs.Close()
		require.Equal(t, 200, code)
		require.Len(t, cur.Tasks, 1)
		if run == "second" {
			assert.Len(t, cur.Tasks[0].History, 10, "the last task's history is restored")
			require.NotEmpty(t, cur.Tasks[0].Checkpoints)
			assert.Equal(t, 10, cur.Tasks[0].Checkpoints[0].Episodes)
		}
	}
}

// BenchmarkStartManyTasks reports a first start on 10,000 tasks (empty
// state database) and a second one on the state the first left with
// 100,000 outcomes (10 per task) in the curriculum and the journal.
func BenchmarkStartManyTasks(b *testing.B) {
	n := 10000
	dir := corpusDir(b, n)
	for b.Loop() {
		state := statePath(b)
		_, first := startFrom(b, dir, state)
		seedState(b, state, n, 10)
		_, second := startFrom(b, dir, state)
		b.ReportMetric(first.total().Seconds(), "first_s")
		b.ReportMetric(first.discover.Seconds(), "discover_s")
		b.ReportMetric(first.state.Seconds(), "first_state_s")
		b.ReportMetric(first.server.Seconds(), "first_new_s")
		b.ReportMetric(first.cpu.Seconds(), "first_cpu_s")
		b.ReportMetric(second.total().Seconds(), "second_s")
		b.ReportMetric(second.cpu.Seconds(), "second_cpu_s")
		b.ReportMetric(second.state.Seconds(), "second_state_s")
		b.ReportMetric(second.server.Seconds(), "second_new_s")
	}
}
