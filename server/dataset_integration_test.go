package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/rbx-sandbox/rbx/capacity"
	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
	"github.com/rbx-sandbox/rbx/server"
)

// budgetServer serves entries on rt with a budget of max sandboxes, warm
// sets following demand, as rbx serve builds it.
func budgetServer(t *testing.T, rt sandbox.Runtime, entries []server.Entry, max int, ropts ...reset.Option) (string, *reset.Resetter) {
	t.Helper()
	b, err := capacity.New(max)
	require.NoError(t, err)
	rp, err := replayer.New()
	require.NoError(t, err)
	opts := append([]reset.Option{reset.WithBudget(b), reset.WithWarm(max), reset.WithClassMax(max),
		reset.WithCapacityWait(time.Minute), reset.WithPoolOptions(pool.WithSize(max))}, ropts...)
	rs, err := reset.New(rt, rp, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rs.Close(context.Background())) })
	eng, err := curriculum.New(curriculum.WithStrategy(curriculum.Sequential))
	require.NoError(t, err)
	srv, err := server.New(context.Background(), rs, rp, eng, entries)
	require.NoError(t, err)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { hs.Close(); require.NoError(t, srv.Close(context.Background())) })
	return hs.URL, rs
}

// post sends a JSON body and decodes a 200 answer into out; safe off the
// test goroutine. It returns the status, the Retry-After and the body.
func post(ctx context.Context, url string, body, out any) (int, string, []byte, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return 0, "", nil, err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(b))
	if err != nil {
		return 0, "", nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return 0, "", nil, err
	}
	if resp.StatusCode == http.StatusOK && out != nil {
		err = json.Unmarshal(buf.Bytes(), out)
	}
	return resp.StatusCode, resp.Header.Get("Retry-After"), buf.Bytes(), err
}

// ownSandboxes counts the sandboxes of this process, whatever their state,
// but the never-started baseline container per image that recycling reads
// image files from (no process, no memory: not a sandbox).
func ownSandboxes(ctx context.Context, rt sandbox.Runtime) (int, error) {
	list, err := rt.List(ctx, map[string]string{sandbox.LabelOwner: sandbox.Owner})
	n := 0
	for _, in := range list {
		if in.Labels[docker.LabelRole] != "baseline" {
			n++
		}
	}
	return n, err
}

// watchPeak samples this process's sandboxes until the test ends and
// returns the highest count seen.
func watchPeak(t *testing.T, rt sandbox.Runtime) *atomic.Int64 {
	var peak atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if n, err := ownSandboxes(ctx, rt); err == nil && int64(n) > peak.Load() {
				peak.Store(int64(n))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return &peak
}

// firstReset resets task at auto like a trainer (429 → wait Retry-After
// and retry), checks the workdir holds exactly the task's files (and the
// log of the replayed steps) and closes the episode. It returns the 429s.
func firstReset(ctx context.Context, url, id string) (int, error) {
	throttled := 0
	for {
		var rr server.ResetResponse
		code, after, raw, err := post(ctx, url+"/v1/reset", map[string]any{"task": id}, &rr)
		if err != nil {
			return throttled, err
		}
		if code == http.StatusTooManyRequests && strings.Contains(string(raw), `"capacity"`) && after != "" {
			throttled++
			time.Sleep(time.Second)
			continue
		}
		if code != http.StatusOK {
			return throttled, fmt.Errorf("reset %s: %d %s", id, code, raw)
		}
		ep := rr.Episodes[0]
		var sr server.StepResponse
		call := map[string]any{"name": "shell", "arguments": map[string]any{"command": "ls -A; cat owner.txt"}}
		if code, _, raw, err = post(ctx, url+"/v1/episodes/"+ep.ID+"/step", map[string]any{"tool_call": call}, &sr); err != nil || code != http.StatusOK {
			return throttled, fmt.Errorf("step %s: %d %s %v", id, code, raw, err)
		}
		want := []string{id + ".txt", "owner.txt"}
		if ep.K > 0 {
			want = append(want, "log")
		}
		sort.Strings(want)
		if got := sr.Observation.Output; got != strings.Join(want, "\n")+"\n"+id+"\n" {
			return throttled, fmt.Errorf("task %s at k=%d: the workdir holds %q, want %q and the owner %s", id, ep.K, got, want, id)
		}
		_, _, _, err = post(ctx, url+"/v1/episodes/"+ep.ID+"/close", map[string]any{}, nil)
		return throttled, err
	}
}

// TestIntegrationServeDatasetWithinBudget (issue 27): 300 tasks in two
// sandbox classes under a budget of 6, recycling in place: no sandbox
// exists before the first reset; a burst of 4× the budget never exceeds it
// (resets wait in line and succeed, or get 429 capacity and retry); every
// task's first reset succeeds and its sandbox — recycled from the
// episodes of other tasks of its class — holds only its own files.
func TestIntegrationServeDatasetWithinBudget(t *testing.T) {
	rt := dockertest.RecyclingRuntime(t, "rbx/busybox:latest")
	const budget, n = 6, 300
	entries := writeDataset(t, t.TempDir(), n)
	peak := watchPeak(t, rt)
	url, rs := budgetServer(t, rt, entries, budget, reset.WithRecycle(reset.RecycleInPlace))
	time.Sleep(1500 * time.Millisecond) // a planning round or more
	ctx := context.Background()
	before, err := ownSandboxes(ctx, rt)
	require.NoError(t, err)
	require.Zero(t, before, "no sandbox before the first reset")

	var g errgroup.Group
	g.SetLimit(4 * budget)
	var throttled atomic.Int64
	for _, e := range entries {
		g.Go(func() error {
			n, err := firstReset(ctx, url, e.Task.ID)
			throttled.Add(int64(n))
			return err
		})
	}
	require.NoError(t, g.Wait())
	st := rs.Budget().Stats()
	t.Logf("peak %d sandboxes seen (budget %d, its own peak %d); %d resets waited, %d throttled; pools %+v",
		peak.Load(), budget, st.Peak, st.Waits, throttled.Load(), rs.Stats())
	assert.LessOrEqual(t, peak.Load(), int64(budget), "sandboxes seen on the engine")
	assert.LessOrEqual(t, st.Peak, budget)
	assert.Positive(t, st.Waits, "the burst waited in line")
	var created, recycled, failed int64
	for _, p := range rs.Stats() {
		created, recycled, failed = created+p.Created, recycled+p.Recycled, failed+p.RecycleFailed
	}
	t.Logf("%d sandboxes created, %d recycles, %d refused, for %d episodes", created, recycled, failed, n)
	assert.Zero(t, failed, "these episodes leave nothing a recycle cannot restore")
	assert.Less(t, created, int64(n/4), "recycled sandboxes serve most episodes")
	assert.Equal(t, float64(recycled), scrapeSum(t, url, "rbx_pool_recycled_total"), "/metrics counts the recycles")
}

// scrapeSum sums a metric's series in the server's /metrics.
func scrapeSum(t *testing.T, url, metric string) float64 {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	sum := 0.0
	for line := range strings.Lines(string(raw)) {
		if !strings.HasPrefix(line, metric+"{") {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(line[strings.LastIndexByte(line, ' ')+1:]), 64)
		require.NoError(t, err, line)
		sum += v
	}
	return sum
}
