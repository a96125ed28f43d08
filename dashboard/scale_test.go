package dashboard_test

import (
	"context"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/corpus/corpustest"
	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/dashboard"
	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/prefilter"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox/local"
	"github.com/rbx-sandbox/rbx/server"
	"github.com/rbx-sandbox/rbx/server/api"
)

// manyHarness serves n generated tasks with the dashboard (pools of 0:
// no sandbox is created).
func manyHarness(t testing.TB, n int) *harness {
	t.Helper()
	dir := t.TempDir()
	corpustest.Write(t, dir, n)
	items, err := prefilter.Discover(dir)
	require.NoError(t, err)
	entries, _, err := server.References(items)
	require.NoError(t, err)
	rt, err := local.New(local.WithBaseDir(t.TempDir()))
	require.NoError(t, err)
	rp, err := replayer.New()
	require.NoError(t, err)
	rs, err := reset.New(rt, rp, reset.WithPoolOptions(pool.WithSize(0)))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rs.Close(context.Background())) })
	eng, err := curriculum.New(curriculum.WithStrategy(curriculum.Sequential))
	require.NoError(t, err)
	srv, err := server.New(context.Background(), rs, rp, eng, entries)
	require.NoError(t, err)
	h, err := dashboard.Mount(srv.Handler())
	require.NoError(t, err)
	hs := httptest.NewServer(h)
	t.Cleanup(func() { hs.Close(); require.NoError(t, srv.Close(context.Background())) })
	return &harness{t: t, url: hs.URL}
}

func scaleTasks() int {
	if testing.Short() {
		return 2000
	}
	return 10000
}

var rowRE = regexp.MustCompile(`<tr data-task="([^"]+)"`)

// rows are the task ids of an overview's table, in order.
func rows(body string) []string {
	var out []string
	for _, m := range rowRE.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestOverviewWithManyTasks: the overview of 10,000 tasks shows one page
// of rows, the counts per phase, the search and the phase filter, and a
// next page that continues where the first ended; its size does not grow
// with the number of tasks.
func TestOverviewWithManyTasks(t *testing.T) {
	n := scaleTasks()
	h := manyHarness(t, n)
	var rr api.ResetResponse
	h.post("/v1/reset", map[string]any{"task": corpustest.ID(0), "checkpoint": 0}, &rr)
	h.post("/v1/episodes/"+rr.Episodes[0].ID+"/close", nil, nil)
	body := h.get("/ui/")
	got := rows(body)
	require.Len(t, got, 50)
	assert.Equal(t, corpustest.ID(0), got[0])
	assert.Less(t, len(body), 128<<10, "one page, not every task")
	assert.Contains(t, body, `data-phase="all" data-count="`+strconv.Itoa(n)+`"`)
	assert.Contains(t, body, `data-phase="rollback" data-count="`+strconv.Itoa(n)+`"`)
	assert.Contains(t, body, `data-total="`+strconv.Itoa(n)+`"`)
	assert.Contains(t, body, `<td data-label="resets/s">–</td>`, "past 100 tasks the metrics are not per task")
	next := regexp.MustCompile(`<a href="([^"]+)" rel="next">`).FindStringSubmatch(body)
	require.Len(t, next, 2)
	second := rows(h.get(strings.ReplaceAll(next[1], "&amp;", "&")))
	require.NotEmpty(t, second)
	assert.Equal(t, corpustest.ID(50), second[0])

	tests := []struct {
		query string
		want  []string
	}{
		{query: "?q=gen-0199", want: []string{corpustest.ID(1990), corpustest.ID(1991)}},
		{query: "?phase=rollback&q=gen-0001", want: []string{corpustest.ID(10), corpustest.ID(11)}},
		{query: "?phase=solved"},
	}
	for _, tc := range tests {
		got := rows(h.get("/ui/" + tc.query))
		if len(got) > len(tc.want) {
			got = got[:len(tc.want)]
		}
		assert.Equal(t, tc.want, got, tc.query)
	}
	code, _, _ := h.do("GET", "/ui/?phase=mastered", nil)
	assert.Equal(t, 400, code)
	live := h.live("/ui/live?q=gen-0199")
	assert.Len(t, rows(live.Fragments["tasks"]), 10)
	assert.Contains(t, live.Fragments["phases"], `data-phase="all" data-count="10"`)
}

// BenchmarkOverviewManyTasks reports the time to render the overview of
// 10,000 tasks and its size.
func BenchmarkOverviewManyTasks(b *testing.B) {
	h := manyHarness(b, 10000)
	var size int
	start := time.Now()
	for b.Loop() {
		size = len(h.get("/ui/"))
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "ms/page")
	b.ReportMetric(float64(size)/1024, "KiB/page")
}
